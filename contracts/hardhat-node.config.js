// The local chain's settings alone, for `hardhat node` (startHardhatNode) and the embedded chain's
// node (keyed-hardhat-node.js): the same network as hardhat.config.ts gives Hardhat's own tests,
// which takes these, without loading the toolbox, TypeScript or the compiler a node does not need,
// at about half the start-up work.
module.exports = {
  networks: {
    hardhat: {
      hardfork: 'cancun',
      // The embedded chain's first start date, kept in its data directory: block 0 (and so the
      // genesis hash verifiers pin) is the same on every start.
      ...(process.env.TRUSTPOINT_CHAIN_INITIAL_DATE === undefined
        ? {}
        : { initialDate: process.env.TRUSTPOINT_CHAIN_INITIAL_DATE }),
    },
  },
};
