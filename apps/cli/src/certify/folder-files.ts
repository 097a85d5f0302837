import { readdir } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';

/**
 * The files under `folder`, recursively, sorted, as paths relative to it (with `/`). Hidden files
 * and folders (a leading dot: `.git`, the state file) and symbolic links are left out.
 */
export async function folderFiles(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => relative(folder, join(entry.parentPath, entry.name)))
    .filter((path) => !path.split(sep).some((part) => part.startsWith('.')))
    .map((path) => path.split(sep).join('/'))
    .sort();
}
