// SPDX-License-Identifier: Apache-2.0
pragma solidity 0.8.30;

/// @title Trustpoint certificate registry
/// @notice Records the trustpoints of certificates: one hash and type per (certID, timestamp).
/// @dev Records are stored under `key = keccak256(abi.encodePacked(certId, timestamp))`, so
/// certificate identifiers never appear in plain text on chain; anyone who knows a certificate's
/// certID and trustpoint timestamp reads its trustpoint back with `getTrustPoint`.
interface ITrustPointRegistry {
    /// @notice Kind of a trustpoint; the numeric codes are part of the public interface.
    enum TrustPointType {
        Evidence,
        Revocation,
        Signature
    }

    /// @notice One trustpoint to register.
    /// @param key `trustPointKey(certId, timestamp)`.
    /// @param hash The trustpoint hash (SHA-256 digest) as a 32-byte word.
    /// @param trustPointType The kind of trustpoint.
    struct TrustPointRecord {
        bytes32 key;
        bytes32 hash;
        TrustPointType trustPointType;
    }

    /// @notice Emitted when a trustpoint is recorded.
    /// @param key `trustPointKey(certId, timestamp)`.
    /// @param hash The trustpoint hash, indexed so that anyone holding a hash can find its record.
    /// @param trustPointType The kind of trustpoint.
    event TrustPointRegistered(
        bytes32 indexed key,
        bytes32 indexed hash,
        TrustPointType trustPointType
    );

    /// @notice Thrown when no trustpoint is recorded for the requested certID and timestamp.
    /// @dev Selector 0x16fd89cc, relied upon by verifiers; never rename.
    error TrustPointNotFound_6Gr6z8();

    /// @notice Thrown when a key already holds a different hash or type.
    /// @param key The key of the rejected record.
    error TrustPointConflict(bytes32 key);

    /// @notice Thrown when a record's hash is zero, which is reserved for "not recorded".
    /// @param key The key of the rejected record.
    error TrustPointHashEmpty(bytes32 key);

    /// @notice Records one trustpoint. Re-sending an identical record is a no-op.
    /// @param key `trustPointKey(certId, timestamp)`.
    /// @param hash The trustpoint hash.
    /// @param trustPointType The kind of trustpoint.
    function registerTrustPoint(bytes32 key, bytes32 hash, TrustPointType trustPointType) external;

    /// @notice Records a batch of trustpoints, emitting one event per new record. Records already
    /// recorded identically are skipped, so a sender that crashed can re-send the whole batch.
    /// @param records The trustpoints to record.
    function registerTrustPoints(TrustPointRecord[] calldata records) external;

    /// @notice Reads a trustpoint.
    /// @param certId The certificate identifier (`did:<ns>:certid:<id>`).
    /// @param timestamp The trustpoint timestamp, in milliseconds since the epoch.
    /// @return hash The trustpoint hash as 64 lowercase hexadecimal characters, without `0x`.
    /// @return trustPointType The kind of trustpoint.
    function getTrustPoint(
        string calldata certId,
        uint256 timestamp
    ) external view returns (string memory hash, TrustPointType trustPointType);

    /// @notice Reads a trustpoint by key; a zero hash means nothing is recorded.
    /// @param key `trustPointKey(certId, timestamp)`.
    /// @return hash The trustpoint hash, or zero.
    /// @return trustPointType The kind of trustpoint (Evidence when nothing is recorded).
    function trustPointOf(
        bytes32 key
    ) external view returns (bytes32 hash, TrustPointType trustPointType);

    /// @notice The storage key of a trustpoint.
    /// @param certId The certificate identifier.
    /// @param timestamp The trustpoint timestamp, in milliseconds since the epoch.
    /// @return The key, `keccak256(abi.encodePacked(certId, timestamp))`.
    function trustPointKey(
        string calldata certId,
        uint256 timestamp
    ) external pure returns (bytes32);
}
