import type { S3FileStoreSettings } from './s3-file-store.js';

const BUCKET_NAME = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

/**
 * The bucket of published files from the environment, or undefined for the local directory:
 * `FILES_S3_BUCKET` (required to use a bucket), `FILES_S3_ENDPOINT` (an S3-compatible server;
 * default AWS), `FILES_S3_REGION` (default `AWS_REGION`, else `us-east-1`), `FILES_S3_PREFIX`
 * (default none), `FILES_S3_FORCE_PATH_STYLE` (default true with an endpoint). Credentials come
 * from the AWS SDK's own chain (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, profiles, roles),
 * never from here. A bad value throws, so a bad configuration stops the start.
 */
export function s3SettingsFromEnv(env: NodeJS.ProcessEnv): S3FileStoreSettings | undefined {
  const bucket = env.FILES_S3_BUCKET;
  if (bucket === undefined || bucket === '') {
    for (const name of ['FILES_S3_ENDPOINT', 'FILES_S3_PREFIX'] as const) {
      if (env[name] !== undefined && env[name] !== '') {
        throw new Error(`${name} is set but FILES_S3_BUCKET is not: name the bucket`);
      }
    }
    return undefined;
  }
  if (!BUCKET_NAME.test(bucket))
    throw new Error(`FILES_S3_BUCKET: "${bucket}" is not a bucket name`);
  const endpoint = env.FILES_S3_ENDPOINT === '' ? undefined : env.FILES_S3_ENDPOINT;
  if (endpoint !== undefined && !/^https?:\/\/[^\s]+$/.test(endpoint)) {
    throw new Error('FILES_S3_ENDPOINT: expected an http(s) URL');
  }
  const prefix = env.FILES_S3_PREFIX ?? '';
  if (prefix !== '' && !/^[A-Za-z0-9._/-]+\/$/.test(prefix)) {
    throw new Error('FILES_S3_PREFIX: letters, digits, . _ - / only, ending with /');
  }
  const pathStyle = env.FILES_S3_FORCE_PATH_STYLE;
  if (
    pathStyle !== undefined &&
    pathStyle !== '' &&
    pathStyle !== 'true' &&
    pathStyle !== 'false'
  ) {
    throw new Error('FILES_S3_FORCE_PATH_STYLE: expected true or false');
  }
  return {
    bucket,
    prefix,
    endpoint,
    region: env.FILES_S3_REGION || env.AWS_REGION || 'us-east-1',
    forcePathStyle:
      pathStyle === 'true' ? true : pathStyle === 'false' ? false : endpoint !== undefined,
  };
}
