// The local chain's settings alone, for `hardhat node` (startHardhatNode) and the embedded chain's
// node (keyed-hardhat-node.js): the same network as hardhat.config.ts gives Hardhat's own tests,
// which takes these, without loading the toolbox, TypeScript or the compiler a node does not need,
// at about half the start-up work.
module.exports = {
  networks: {
    hardhat: {
      hardfork: 'cancun',
      // A block per transaction, each dated now: without it every block is a second after the
      // one before, so a burst of transactions (a batch every few ms under load) ran the chain's
      // clock ahead of the world's, a second per block (60 transactions: a minute ahead), which
      // dates every record later than it was made and makes verifiers, who judge expiry at the
      // chain's time when it is later than theirs, see certificates expire early.
      allowBlocksWithSameTimestamp: true,
      // The embedded chain's first start date, kept in its data directory: block 0 (and so the
      // genesis hash verifiers pin) is the same on every start.
      ...(process.env.TRUSTPOINT_CHAIN_INITIAL_DATE === undefined
        ? {}
        : { initialDate: process.env.TRUSTPOINT_CHAIN_INITIAL_DATE }),
    },
  },
};
