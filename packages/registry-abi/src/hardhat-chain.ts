// What every Hardhat node shares. The service reads them at run time (the embedded local chain is
// its default network); they need no Hardhat.

/** Chain id of every Hardhat node. */
export const HARDHAT_CHAIN_ID = 31337n;

/**
 * Account #0 of every Hardhat node. Public knowledge: only ever used on a local development chain,
 * where it holds the registrar role of the embedded deployment.
 */
export const HARDHAT_DEV_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
