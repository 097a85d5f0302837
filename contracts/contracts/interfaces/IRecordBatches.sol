// SPDX-License-Identifier: Apache-2.0
pragma solidity 0.8.30;

/// @title Records kept in slots and in the code of data contracts
/// @notice What both batch registries share: their batch index, read by anyone, and the errors of
/// their writes. See `RecordBatches` for the layout.
interface IRecordBatches {
    /// @notice Thrown when a data batch is empty, too large or not a whole number of records.
    /// @param length The length of the records argument, in bytes.
    error BatchLengthInvalid(uint256 length);

    /// @notice Thrown when a data batch's records are not strictly ascending by key.
    /// @param index The position of the first record out of order.
    error BatchNotSorted(uint256 index);

    /// @notice Thrown when a data batch names no bucket, or a bucket entry is malformed.
    error BatchBucketsInvalid();

    /// @notice Thrown when a record's hash is zero, which is reserved for "not recorded".
    /// @param index The position of the record in its batch.
    error RecordHashEmpty(uint256 index);

    /// @notice Thrown when a slot record is sent for a bucket that a data batch already touched
    /// (send it in a data batch instead).
    /// @param bucket The record's bucket.
    error SlotBucketClosed(uint256 bucket);

    /// @notice Thrown when the data contract could not be created.
    error BatchDeploymentFailed();

    /// @notice Number of data batches written so far.
    /// @return The count.
    function batchCount() external view returns (uint256);

    /// @notice The address of data batch `batch` (0-based), whether or not it exists yet.
    /// @param batch The batch number.
    /// @return The address of the data contract (CREATE address of this registry's nonce
    /// `batch + 1`).
    function batchAddress(uint256 batch) external view returns (address);

    /// @notice Whether slot records of `bucket` are still accepted.
    /// @param bucket The bucket.
    /// @return True while no data batch has touched `bucket` or a later one.
    function slotBucketOpen(uint256 bucket) external view returns (bool);

    /// @notice The data batch entries of a bucket, in write order.
    /// @param bucket The bucket.
    /// @return batches The batch numbers.
    /// @return minOffsets Offset of each batch's first record in the bucket.
    /// @return maxOffsets Offset of each batch's last record in the bucket.
    function bucketBatches(
        uint256 bucket
    )
        external
        view
        returns (
            uint256[] memory batches,
            uint256[] memory minOffsets,
            uint256[] memory maxOffsets
        );
}
