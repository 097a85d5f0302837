import { readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The file `trustpoint certify` keeps in the folder it certifies, to resume after a stop. */
export const STATE_FILE_NAME = '.trustpoint-certified.json';

export interface CertifiedFile {
  /** `sha256(file bytes)`, what `sha256sum` prints: the key files are skipped by. */
  fileHash: string;
  certID: string;
  /** Path relative to the folder, when it was certified. */
  path: string;
  networkId: number;
  certifiedAt: string;
}

interface StateFile {
  version: 1;
  files: CertifiedFile[];
}

/**
 * What was certified from a folder, by file hash. Written after every certificate (to a temporary
 * file renamed over the old one, so a stop mid-write leaves the previous state): an interrupted run
 * loses at most the certificates in flight, which the next run finds through the API by hash.
 */
export class CertifyState {
  readonly #path: string;
  readonly #byHash = new Map<string, CertifiedFile>();
  #writing: Promise<void> = Promise.resolve();

  private constructor(folder: string) {
    this.#path = join(folder, STATE_FILE_NAME);
  }

  static async load(folder: string): Promise<CertifyState> {
    const state = new CertifyState(folder);
    let text: string;
    try {
      text = await readFile(state.#path, 'utf8');
    } catch {
      return state;
    }
    const parsed = JSON.parse(text) as Partial<StateFile>;
    for (const file of parsed.files ?? []) state.#byHash.set(file.fileHash, file);
    return state;
  }

  get path(): string {
    return this.#path;
  }

  find(fileHash: string): CertifiedFile | undefined {
    return this.#byHash.get(fileHash);
  }

  /** Records a certified file and writes the state; writes are serialized. */
  async add(file: CertifiedFile): Promise<void> {
    this.#byHash.set(file.fileHash, file);
    const snapshot: StateFile = { version: 1, files: [...this.#byHash.values()] };
    this.#writing = this.#writing.then(async () => {
      const temporary = `${this.#path}.tmp`;
      await writeFile(temporary, `${JSON.stringify(snapshot, null, 2)}\n`);
      await rename(temporary, this.#path);
    });
    await this.#writing;
  }
}
