// SPDX-License-Identifier: Apache-2.0
pragma solidity 0.8.30;

import {AccessControl} from "@openzeppelin/contracts/access/AccessControl.sol";
import {ITrustPointRegistry} from "./interfaces/ITrustPointRegistry.sol";
import {Hex} from "./libraries/Hex.sol";
import {RecordKey} from "./libraries/RecordKey.sol";

/// @title Trustpoint certificate registry
/// @notice Write-once store of certificate trustpoints, written by registrars and read by anyone.
/// @dev One storage slot per Evidence trustpoint (the common case); Revocation and Signature
/// trustpoints take a second slot for their type.
contract TrustPointRegistry is ITrustPointRegistry, AccessControl {
    /// @notice Role allowed to record trustpoints.
    bytes32 public constant REGISTRAR_ROLE = keccak256("REGISTRAR_ROLE");

    mapping(bytes32 key => bytes32 hash) private _hashes;
    mapping(bytes32 key => TrustPointType trustPointType) private _types;

    /// @param admin Account that manages roles.
    /// @param registrar Account allowed to record trustpoints.
    constructor(address admin, address registrar) {
        _grantRole(DEFAULT_ADMIN_ROLE, admin);
        _grantRole(REGISTRAR_ROLE, registrar);
    }

    /// @inheritdoc ITrustPointRegistry
    function registerTrustPoint(
        bytes32 key,
        bytes32 hash,
        TrustPointType trustPointType
    ) external onlyRole(REGISTRAR_ROLE) {
        _register(key, hash, trustPointType);
    }

    /// @inheritdoc ITrustPointRegistry
    function registerTrustPoints(
        TrustPointRecord[] calldata records
    ) external onlyRole(REGISTRAR_ROLE) {
        uint256 count = records.length;
        for (uint256 i = 0; i < count; ++i) {
            TrustPointRecord calldata record = records[i];
            _register(record.key, record.hash, record.trustPointType);
        }
    }

    /// @inheritdoc ITrustPointRegistry
    function getTrustPoint(
        string calldata certId,
        uint256 timestamp
    ) external view returns (string memory hash, TrustPointType trustPointType) {
        bytes32 key = RecordKey.derive(certId, timestamp);
        bytes32 stored = _hashes[key];
        if (stored == 0) revert TrustPointNotFound_6Gr6z8();
        return (Hex.toHexString(stored), _types[key]);
    }

    /// @inheritdoc ITrustPointRegistry
    function trustPointOf(
        bytes32 key
    ) external view returns (bytes32 hash, TrustPointType trustPointType) {
        return (_hashes[key], _types[key]);
    }

    /// @inheritdoc ITrustPointRegistry
    function trustPointKey(
        string calldata certId,
        uint256 timestamp
    ) external pure returns (bytes32) {
        return RecordKey.derive(certId, timestamp);
    }

    function _register(bytes32 key, bytes32 hash, TrustPointType trustPointType) private {
        if (hash == 0) revert TrustPointHashEmpty(key);
        bytes32 existing = _hashes[key];
        if (existing == 0) {
            _hashes[key] = hash;
            if (trustPointType != TrustPointType.Evidence) _types[key] = trustPointType;
            emit TrustPointRegistered(key, hash, trustPointType);
        } else if (existing != hash || _types[key] != trustPointType) {
            revert TrustPointConflict(key);
        }
        // An identical record is already there: a retried batch passes over it.
    }
}
