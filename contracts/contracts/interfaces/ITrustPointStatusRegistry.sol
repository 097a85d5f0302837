// SPDX-License-Identifier: Apache-2.0
pragma solidity 0.8.30;

/// @title Trustpoint certificate status: revocations readable from the certID alone
/// @notice One permanent status contract per network. Whether a certificate is revoked, and
/// when, is one `eth_call` with nothing but its certID: `revocationOf(certId)`. A revocation is
/// write-once: it can never be undone, changed or back-dated, and the chain time it was written
/// (`recordedAt`, the block's timestamp) is stored beside the time the service claims.
/// @dev Records sit under `key = keccak256(bytes(certId))`, one storage word each:
/// `recordedAt << 64 | timestamp`, zero while not revoked. The Revocation trustpoint is still
/// written to the trustpoint registry under (certId, timestamp); `timestamp` here finds it.
interface ITrustPointStatusRegistry {
    /// @notice One revocation to record.
    /// @param key `revocationKey(certId)`.
    /// @param timestamp The Revocation trustpoint's timestamp, in milliseconds since the epoch.
    struct RevocationRecord {
        bytes32 key;
        uint64 timestamp;
    }

    /// @notice Emitted when a revocation is recorded; an indexer finds every record from these.
    /// @param key `revocationKey(certId)`, indexed so that a certificate's revocation is found
    /// with one topic filter.
    /// @param timestamp The Revocation trustpoint's timestamp, in milliseconds since the epoch.
    // solhint-disable-next-line gas-indexed-events
    event RevocationRecorded(bytes32 indexed key, uint64 timestamp);

    /// @notice Thrown when a certificate is already revoked with another timestamp.
    /// @param key The key of the rejected record.
    error RevocationConflict(bytes32 key);

    /// @notice Thrown when a revocation's timestamp is zero, which is reserved for "not revoked".
    /// @param key The key of the rejected record.
    error RevocationTimestampEmpty(bytes32 key);

    /// @notice Records one revocation. Re-sending an identical record is a no-op (no event).
    /// @param key `revocationKey(certId)`.
    /// @param timestamp The Revocation trustpoint's timestamp, in milliseconds since the epoch.
    function registerRevocation(bytes32 key, uint64 timestamp) external;

    /// @notice Records a batch of revocations, one event per new record. Records already there
    /// identically are skipped, so a sender that crashed can re-send the batch.
    /// @param records The revocations.
    function registerRevocations(RevocationRecord[] calldata records) external;

    /// @notice Whether a certificate is revoked, and when.
    /// @param certId The certificate identifier (`did:<ns>:certid:<id>`).
    /// @return revoked Whether a revocation is recorded.
    /// @return timestamp The Revocation trustpoint's timestamp (milliseconds, as the service
    /// claims it), or 0.
    /// @return recordedAt The chain time the revocation was recorded (the block's timestamp, in
    /// seconds), or 0: what a verifier shows as the time of the revocation.
    function revocationOf(
        string calldata certId
    ) external view returns (bool revoked, uint64 timestamp, uint64 recordedAt);

    /// @notice `revocationOf` by key, for reconciliation.
    /// @param key `revocationKey(certId)`.
    /// @return revoked Whether a revocation is recorded.
    /// @return timestamp The Revocation trustpoint's timestamp in milliseconds, or 0.
    /// @return recordedAt The block timestamp of the record in seconds, or 0.
    function revocationOfKey(
        bytes32 key
    ) external view returns (bool revoked, uint64 timestamp, uint64 recordedAt);

    /// @notice The storage key of a certificate's status.
    /// @param certId The certificate identifier.
    /// @return The key, `keccak256(bytes(certId))`.
    function revocationKey(string calldata certId) external pure returns (bytes32);
}
