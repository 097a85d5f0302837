/**
 * PGlite's own start parameters (0.5.x), with PostgreSQL's buffer cache cut from its default
 * 128 MB: the engine's WebAssembly memory holds the whole cache and never gives it back, and the
 * data directory's files stay in the operating system's page cache anyway. Measured on the
 * embedded service (`trustpoint start`, idle): see docs/performance.md.
 */
export const PGLITE_START_PARAMS = [
  '--single',
  '-F',
  '-O',
  '-j',
  '-c',
  'search_path=public',
  '-c',
  'exit_on_error=false',
  '-c',
  'log_checkpoints=false',
  '-c',
  'max_worker_processes=0',
  '-c',
  'max_parallel_workers=0',
  '-c',
  'max_parallel_workers_per_gather=0',
  '-c',
  'io_method=sync',
  '-c',
  'max_parallel_maintenance_workers=0',
  '-c',
  'shared_buffers=16MB',
];
