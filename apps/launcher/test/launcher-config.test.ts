import { describe, expect, it } from 'vitest';
import { readLauncherConfig } from '../src/launcher-config.js';

describe('readLauncherConfig: files and URL fetching', () => {
  it('when nothing is set, then uploads are limited to 2 GiB and no private address may be fetched', () => {
    // Act
    const config = readLauncherConfig({});

    // Assert
    expect(config.maxFileBytes).toBe(2 * 1024 ** 3);
    expect(config.urlFetchAllow).toEqual([]);
    expect(config.urlFetchAllowPrivate).toBe(false);
  });

  it('when the variables are set, then they are read', () => {
    // Act
    const config = readLauncherConfig({
      MAX_FILE_BYTES: '1048576',
      URL_FETCH_ALLOW: ' 10.1.2.3, 192.168.0.0/16,fd00::/8 ',
      URL_FETCH_ALLOW_PRIVATE: 'true',
    });

    // Assert
    expect(config.maxFileBytes).toBe(1_048_576);
    expect(config.urlFetchAllow).toEqual(['10.1.2.3', '192.168.0.0/16', 'fd00::/8']);
    expect(config.urlFetchAllowPrivate).toBe(true);
  });

  it.each([
    [{ MAX_FILE_BYTES: '2GB' }, /MAX_FILE_BYTES/],
    [{ URL_FETCH_ALLOW: 'intranet.local' }, /URL_FETCH_ALLOW must list/],
    [{ URL_FETCH_ALLOW: '10.0.0.0/33' }, /URL_FETCH_ALLOW must list/],
    [{ URL_FETCH_ALLOW_PRIVATE: 'yes' }, /URL_FETCH_ALLOW_PRIVATE must be true or false/],
  ])('when %o is set, then the start stops with a message naming the variable', (env, message) => {
    // Act / Assert
    expect(() => readLauncherConfig(env)).toThrow(message);
  });
});
