import { describe, expect, it } from 'vitest';
import { s3SettingsFromEnv } from '../src/files/s3-settings-from-env.js';

describe('s3SettingsFromEnv', () => {
  it('when no bucket is named, then published files stay in the local directory', () => {
    expect(s3SettingsFromEnv({})).toBeUndefined();
  });

  it('when a bucket and an endpoint are named, then path-style URLs are used by default', () => {
    expect(
      s3SettingsFromEnv({
        FILES_S3_BUCKET: 'trustpoint-files',
        FILES_S3_ENDPOINT: 'http://minio:9000',
        FILES_S3_PREFIX: 'prod/',
      }),
    ).toEqual({
      bucket: 'trustpoint-files',
      endpoint: 'http://minio:9000',
      prefix: 'prod/',
      region: 'us-east-1',
      forcePathStyle: true,
    });
  });

  it('when only a bucket is named (AWS), then virtual-hosted URLs and AWS_REGION', () => {
    expect(s3SettingsFromEnv({ FILES_S3_BUCKET: 'files', AWS_REGION: 'eu-west-3' })).toMatchObject({
      region: 'eu-west-3',
      forcePathStyle: false,
    });
  });

  it.each([
    [{ FILES_S3_ENDPOINT: 'http://minio:9000' }, /FILES_S3_BUCKET is not/],
    [{ FILES_S3_BUCKET: 'Bad_Bucket' }, /not a bucket name/],
    [{ FILES_S3_BUCKET: 'files', FILES_S3_ENDPOINT: 'minio:9000' }, /http\(s\) URL/],
    [{ FILES_S3_BUCKET: 'files', FILES_S3_PREFIX: 'no-slash' }, /ending with \//],
    [{ FILES_S3_BUCKET: 'files', FILES_S3_FORCE_PATH_STYLE: 'yes' }, /true or false/],
  ])('when the settings are %o, then the start stops with a clear message', (env, message) => {
    expect(() => s3SettingsFromEnv(env)).toThrow(message);
  });
});
