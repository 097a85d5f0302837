// SPDX-License-Identifier: Apache-2.0
pragma solidity 0.8.30;

import {IRecordBatches} from "./IRecordBatches.sol";
import {IRegistryGeneration} from "./IRegistryGeneration.sol";

/// @title Trustpoint certificate registry, batches kept as contract code
/// @notice Records the trustpoints of certificates: one hash and type per (certID, timestamp).
/// Reads are those of `ITrustPointRegistry` (same `getTrustPoint`, outputs and revert data);
/// writes name each record's timestamp, which places it in a time bucket.
/// @dev `key = keccak256(abi.encodePacked(certId, timestamp))`. Small batches are stored one slot
/// per record (`registerTrustPoint(s)`); large ones as the code of a data contract
/// (`registerTrustPointBatch`), 48 bytes a record. See `RecordBatches` for the layout.
interface ITrustPointBatchRegistry is IRecordBatches, IRegistryGeneration {
    /// @notice Kind of a trustpoint; the numeric codes are part of the public interface.
    enum TrustPointType {
        Evidence,
        Revocation,
        Signature
    }

    /// @notice One trustpoint to store in a slot.
    /// @param key `trustPointKey(certId, timestamp)`.
    /// @param hash The trustpoint hash (SHA-256 digest) as a 32-byte word.
    /// @param trustPointType The kind of trustpoint.
    /// @param timestamp The trustpoint timestamp, in milliseconds since the epoch.
    struct TrustPointSlotRecord {
        bytes32 key;
        bytes32 hash;
        TrustPointType trustPointType;
        uint256 timestamp;
    }

    /// @notice Emitted when a trustpoint is stored in a slot.
    /// @param key `trustPointKey(certId, timestamp)`.
    /// @param hash The trustpoint hash.
    /// @param trustPointType The kind of trustpoint.
    event TrustPointRecorded(bytes32 key, bytes32 hash, TrustPointType trustPointType);

    /// @notice Emitted when a batch is stored as a data contract; its records are the contract's
    /// code after the first byte, 48 bytes each: the key's top 126 bits and the type (16 bytes),
    /// then the hash.
    /// @param batch The batch number (0-based).
    /// @param records The data contract.
    /// @param count Number of records.
    // solhint-disable-next-line gas-indexed-events
    event TrustPointBatchRecorded(uint256 indexed batch, address records, uint256 count);

    /// @notice Thrown when no trustpoint is recorded for the requested certID and timestamp.
    /// @dev Selector 0x16fd89cc, relied upon by verifiers; never rename.
    error TrustPointNotFound_6Gr6z8();

    /// @notice Thrown when a slot already holds a different hash or type under a key.
    /// @param key The key of the rejected record.
    error TrustPointConflict(bytes32 key);

    /// @notice Stores one trustpoint in a slot. Re-sending an identical record is a no-op.
    /// @param key `trustPointKey(certId, timestamp)`.
    /// @param hash The trustpoint hash.
    /// @param trustPointType The kind of trustpoint.
    /// @param timestamp The trustpoint timestamp, in milliseconds since the epoch.
    function registerTrustPoint(
        bytes32 key,
        bytes32 hash,
        TrustPointType trustPointType,
        uint256 timestamp
    ) external;

    /// @notice Stores a small batch of trustpoints in slots, one event per new record. Records
    /// already stored identically are skipped, so a sender that crashed can re-send the batch.
    /// @param records The trustpoints.
    function registerTrustPoints(TrustPointSlotRecord[] calldata records) external;

    /// @notice Stores a batch of trustpoints as the code of a new data contract. A batch identical to
    /// one already stored (same records, same first bucket word), as a sender re-signs after a
    /// crash, is not stored again: no event, and the earlier batch number is returned.
    /// @param records 48 bytes a record: `bytes16(key) with its low 2 bits set to the type`, then
    /// the hash; strictly ascending by the key's top 126 bits; 1 to `MAX_BATCH_RECORDS` records.
    /// @param buckets One word per distinct bucket of the records' timestamps (`bucketOf`):
    /// `bucket << 32 | minOffset << 16 | maxOffset`, the offsets of its first and last record.
    /// @return The batch number.
    function registerTrustPointBatch(
        bytes calldata records,
        uint256[] calldata buckets
    ) external returns (uint256);

    /// @notice Reads a trustpoint.
    /// @param certId The certificate identifier (`did:<ns>:certid:<id>`).
    /// @param timestamp The trustpoint timestamp, in milliseconds since the epoch.
    /// @return hash The trustpoint hash as 64 lowercase hexadecimal characters, without `0x`.
    /// @return trustPointType The kind of trustpoint.
    function getTrustPoint(
        string calldata certId,
        uint256 timestamp
    ) external view returns (string memory hash, TrustPointType trustPointType);

    /// @notice Reads a trustpoint by key and timestamp, without reverting.
    /// @param key `trustPointKey(certId, timestamp)`.
    /// @param timestamp The trustpoint timestamp, in milliseconds since the epoch.
    /// @return found Whether a trustpoint is recorded.
    /// @return hash The trustpoint hash, or zero.
    /// @return trustPointType The kind of trustpoint (Evidence when nothing is recorded).
    function findTrustPoint(
        bytes32 key,
        uint256 timestamp
    ) external view returns (bool found, bytes32 hash, TrustPointType trustPointType);

    /// @notice The storage key of a trustpoint.
    /// @param certId The certificate identifier.
    /// @param timestamp The trustpoint timestamp, in milliseconds since the epoch.
    /// @return The key, `keccak256(abi.encodePacked(certId, timestamp))`.
    function trustPointKey(
        string calldata certId,
        uint256 timestamp
    ) external pure returns (bytes32);

    /// @notice The time bucket of a timestamp: 1,024 ms each.
    /// @param timestamp The trustpoint timestamp, in milliseconds since the epoch.
    /// @return bucket `timestamp >> 10`.
    /// @return offset `timestamp & 1023`.
    function bucketOf(uint256 timestamp) external pure returns (uint256 bucket, uint256 offset);
}
