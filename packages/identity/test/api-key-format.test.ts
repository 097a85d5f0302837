import { describe, expect, it } from 'vitest';

import { API_KEY_PREFIX, apiKeyDigest, apiKeyId, generateApiKey } from '../src/index.js';

describe('API key format', () => {
  it('when a key is made, then it has the prefix, its id and a checksum that checks', () => {
    // Act
    const { id, key } = generateApiKey();

    // Assert
    expect(key).toMatch(/^tp_live_[0-9A-Za-z]{50}$/);
    expect(key.startsWith(`${API_KEY_PREFIX}${id}`)).toBe(true);
    expect(apiKeyId(key)).toBe(id);
  });

  it('when any one character of the secret changes, then the checksum no longer checks', () => {
    // Arrange
    const { key } = generateApiKey();
    const at = API_KEY_PREFIX.length + 20;
    const changed = `${key.slice(0, at)}${key[at] === 'a' ? 'b' : 'a'}${key.slice(at + 1)}`;

    // Act / Assert
    expect(apiKeyId(changed)).toBeUndefined();
    expect(apiKeyId(`${key}x`)).toBeUndefined();
    expect(apiKeyId('tp_live_short')).toBeUndefined();
  });

  it('when keys are made, then each is different and only its SHA-256 hex is stored', () => {
    // Act
    const keys = new Set(Array.from({ length: 1000 }, () => generateApiKey().key));

    // Assert
    expect(keys.size).toBe(1000);
    expect(apiKeyDigest('tp_live_x')).toMatch(/^[0-9a-f]{64}$/);
  });
});
