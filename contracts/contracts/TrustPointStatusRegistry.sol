// SPDX-License-Identifier: Apache-2.0
pragma solidity 0.8.30;

import {AccessControl} from "@openzeppelin/contracts/access/AccessControl.sol";
import {ITrustPointStatusRegistry} from "./interfaces/ITrustPointStatusRegistry.sol";

/// @title Trustpoint certificate status registry
/// @notice Write-once revocations of certificates, written by registrars and read by anyone.
/// @dev Permanent: it has no successor and no seal, so verifiers pin it once per network. A
/// leaked registrar key can add revocations (the admin then revokes the role), never remove one.
contract TrustPointStatusRegistry is ITrustPointStatusRegistry, AccessControl {
    /// @notice Role allowed to record revocations.
    bytes32 public constant REGISTRAR_ROLE = keccak256("REGISTRAR_ROLE");

    /// @dev `recordedAt << 64 | timestamp`; zero while the certificate is not revoked.
    mapping(bytes32 key => uint256 revocation) private _revocations;

    /// @param admin Account that manages roles.
    /// @param registrar Account allowed to record revocations.
    constructor(address admin, address registrar) {
        _grantRole(DEFAULT_ADMIN_ROLE, admin);
        _grantRole(REGISTRAR_ROLE, registrar);
    }

    /// @inheritdoc ITrustPointStatusRegistry
    function registerRevocation(bytes32 key, uint64 timestamp) external onlyRole(REGISTRAR_ROLE) {
        _register(key, timestamp);
    }

    /// @inheritdoc ITrustPointStatusRegistry
    function registerRevocations(
        RevocationRecord[] calldata records
    ) external onlyRole(REGISTRAR_ROLE) {
        for (uint256 i = 0; i < records.length; ++i) {
            RevocationRecord calldata record = records[i];
            _register(record.key, record.timestamp);
        }
    }

    /// @inheritdoc ITrustPointStatusRegistry
    function revocationOf(
        string calldata certId
    ) external view returns (bool revoked, uint64 timestamp, uint64 recordedAt) {
        return _revocationOf(keccak256(bytes(certId)));
    }

    /// @inheritdoc ITrustPointStatusRegistry
    function revocationOfKey(
        bytes32 key
    ) external view returns (bool revoked, uint64 timestamp, uint64 recordedAt) {
        return _revocationOf(key);
    }

    /// @inheritdoc ITrustPointStatusRegistry
    function revocationKey(string calldata certId) external pure returns (bytes32) {
        return keccak256(bytes(certId));
    }

    function _register(bytes32 key, uint64 timestamp) private {
        if (timestamp == 0) revert RevocationTimestampEmpty(key);
        uint256 existing = _revocations[key];
        if (existing == 0) {
            // The block's time, never the sender's: a revocation cannot be back-dated on chain.
            _revocations[key] = (block.timestamp << 64) | timestamp;
            emit RevocationRecorded(key, timestamp);
        } else if (uint64(existing) != timestamp) {
            revert RevocationConflict(key);
        }
        // The same revocation is already there: a retried batch passes over it.
    }

    function _revocationOf(
        bytes32 key
    ) private view returns (bool revoked, uint64 timestamp, uint64 recordedAt) {
        uint256 revocation = _revocations[key];
        return (revocation != 0, uint64(revocation), uint64(revocation >> 64));
    }
}
