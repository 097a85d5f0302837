// Public API of @trustpoint/chain: networks, the anchoring engine and on-chain reads.
export * from './networks/network-config.js';
export * from './networks/load-networks.js';
export * from './networks/network-registry.js';
export * from './networks/network-summary.js';
export * from './rpc/json-rpc-provider.js';
export * from './anchoring/anchor-record.js';
export * from './anchoring/anchor-logger.js';
export * from './anchoring/anchor-queue.js';
export * from './anchoring/anchor-engine.js';
export * from './anchoring/anchoring-observer.js';
export * from './anchoring/anchoring-thread.js';
export * from './anchoring/network-anchorer.js';
export * from './anchoring/network-health.js';
export * from './anchoring/shared-network-health.js';
export * from './anchoring/fees.js';
export * from './reading/record-reader.js';
export * from './rpc/json-rpc-client.js';
