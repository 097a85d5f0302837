/** Yields to the event loop, as a stream waiting on real I/O would between chunks. */
export function nextTick(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
