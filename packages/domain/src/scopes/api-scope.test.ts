import { describe, expect, it } from 'vitest';

import { parseScopeParameter, scopeParameter, scopesBeyond } from './api-scope.js';

describe('API scopes', () => {
  it('when a scope parameter names known scopes, then they come back once each in order', () => {
    expect(parseScopeParameter('track  read track')).toEqual({
      ok: true,
      scopes: ['read', 'track'],
    });
    expect(parseScopeParameter('')).toEqual({ ok: true, scopes: [] });
  });

  it('when a scope parameter names an unknown word, then it is reported', () => {
    expect(parseScopeParameter('read openid Read')).toEqual({
      ok: false,
      unknown: ['openid', 'Read'],
    });
  });

  it('when scopes are written as a parameter, then they are space-separated in order', () => {
    expect(scopeParameter(['keys', 'read', 'keys'])).toBe('read keys');
  });

  it('when wanted scopes exceed held ones, then the excess is named; full access lacks none', () => {
    expect(scopesBeyond(['certify', 'read'], ['read'])).toEqual(['certify']);
    expect(scopesBeyond(['certify'], undefined)).toEqual([]);
  });
});
