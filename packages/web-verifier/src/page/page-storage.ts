/**
 * Where the page remembers what the user chose (the services they trust, their nodes, their DNS
 * resolver, public endpoints on or off). Served by a service, that is `localStorage`, which only
 * pages of the service's own origin can read or write. Opened from a file (`file:`, the
 * standalone verifier), browsers give every local file one storage: any HTML file the user opens
 * could plant a forger's trust document and nodes there, and the next certificate checked would
 * be VERIFIED in the forger's registry. There, nothing is read from storage or kept past the
 * page: each visit starts from what the user gives it.
 */
export interface PageStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  /** Whether choices outlive the page (false on `file:`). */
  readonly remembers: boolean;
}

function inMemory(): PageStorage {
  const values = new Map<string, string>();
  return {
    getItem: (key) => values.get(key) ?? null,
    setItem: (key, value) => {
      values.set(key, value);
    },
    remembers: false,
  };
}

/** Whether a page at this location shares its storage with whatever else is opened from disk. */
export function sharesStorageWithLocalFiles(location: {
  protocol: string;
  origin: string;
}): boolean {
  return location.protocol === 'file:' || location.origin === 'null';
}

let storage: PageStorage | undefined;

/** The page's storage: `localStorage` when served, memory alone when opened from a file. */
export function pageStorage(): PageStorage {
  if (storage !== undefined) return storage;
  if (typeof location === 'undefined' || sharesStorageWithLocalFiles(location)) {
    storage = inMemory();
    return storage;
  }
  try {
    const local = localStorage;
    storage = {
      getItem: (key) => local.getItem(key),
      setItem: (key, value) => {
        local.setItem(key, value);
      },
      remembers: true,
    };
  } catch {
    // Storage denied (private modes): this visit only.
    storage = inMemory();
  }
  return storage;
}
