// SPDX-License-Identifier: Apache-2.0
pragma solidity 0.8.30;

/// @title A registry's place in its line of generations: the successor it announced, and its seal
/// @notice Verifiers trust a registry only through pins (the user's, or the published document of
/// a service origin the user trusts). A new registry generation is trusted only when a registry
/// already pinned announces it (`nextGeneration`); a retired registry is sealed
/// (`sealedBlockNumber`), after which no registrar, not even a leaked registrar key, can write to
/// it: records written before the seal stay readable forever, none can be added or back-dated.
/// Each answer is one `eth_call`. Both are written by the admin (DEFAULT_ADMIN_ROLE), once.
/// @dev The function names were chosen so that their selectors sort after every write function's
/// of both batch registries: the dispatcher compares selectors in ascending order, and a lower
/// selector would add 22 gas to each write (measured; see contracts/README.md).
interface IRegistryGeneration {
    /// @notice Emitted when the admin announces the registry that succeeds this one.
    /// @param successor The successor registry.
    event SuccessorAnnounced(address indexed successor);

    /// @notice Emitted when the admin seals this registry: every later write reverts.
    /// @param blockNumber The block the seal was written in.
    // solhint-disable-next-line gas-indexed-events
    event Sealed(uint256 blockNumber);

    /// @notice Thrown when a registrar writes to a sealed registry, or the admin seals it again.
    error RegistrySealed();

    /// @notice Thrown when a successor is announced after one already was.
    /// @param successor The successor announced earlier.
    error SuccessorAlreadyAnnounced(address successor);

    /// @notice Thrown when the announced successor is this registry or has no code.
    /// @param successor The rejected address.
    error SuccessorInvalid(address successor);

    /// @notice Announces the registry that succeeds this one; write-once.
    /// @dev Deploy the successor first: an address without code is refused. Allowed before or
    /// after the seal.
    /// @param successor The successor registry.
    function announceNextGeneration(address successor) external;

    /// @notice Seals this registry: from this block on every write by any registrar reverts with
    /// `RegistrySealed`; reads keep working. Irreversible.
    function sealForever() external;

    /// @notice The registry this one announced as its successor.
    /// @return successor The successor, or the zero address while none is announced.
    function nextGeneration() external view returns (address successor);

    /// @notice The block in which this registry was sealed.
    /// @return blockNumber The block number, or 0 while the registry is not sealed.
    function sealedBlockNumber() external view returns (uint256 blockNumber);
}
