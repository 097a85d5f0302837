import { randomUUID } from 'node:crypto';
import { PassThrough, type Readable } from 'node:stream';
import {
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  NotFound,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { storagePathOf, type PublishedFileStore } from './published-file-store.js';

/** Published files on an S3-compatible object store (AWS S3, MinIO, Ceph RGW, R2, ...). */
export interface S3FileStoreSettings {
  bucket: string;
  /** Prepended to every key (e.g. `trustpoint/`); default none. */
  prefix?: string | undefined;
  /** An S3-compatible endpoint (`http://minio:9000`); default AWS for the region. */
  endpoint?: string | undefined;
  /** Default `us-east-1` (MinIO and Ceph accept any). */
  region?: string | undefined;
  /** Path-style URLs (`endpoint/bucket/key`), which most self-hosted stores need. Default: true with an endpoint. */
  forcePathStyle?: boolean | undefined;
  /**
   * Explicit credentials; default the SDK's chain (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY,
   * a profile, an instance or task role).
   */
  credentials?: { accessKeyId: string; secretAccessKey: string } | undefined;
}

/** Uploads are sent in parts of this size, this many at once: bounded memory per upload. */
const PART_BYTES = 8 * 1024 * 1024;
const PARTS_IN_FLIGHT = 2;
const INCOMING_PREFIX = '.incoming/';

export function s3ClientOf(settings: S3FileStoreSettings): S3Client {
  const config: S3ClientConfig = {
    region: settings.region ?? 'us-east-1',
    forcePathStyle: settings.forcePathStyle ?? settings.endpoint !== undefined,
    ...(settings.endpoint === undefined ? {} : { endpoint: settings.endpoint }),
    ...(settings.credentials === undefined ? {} : { credentials: settings.credentials }),
  };
  return new S3Client(config);
}

function isNotFound(error: unknown): boolean {
  if (error instanceof NotFound) return true;
  const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
  return status === 404 || (error as { name?: string }).name === 'NoSuchKey';
}

/**
 * The content-addressed store in a bucket. An upload streams to a temporary key
 * (`<prefix>.incoming/<uuid>`) as a multipart upload while it is hashed (memory bounded by the
 * part size); publishing copies it to `<prefix><aa>/<sha256>` (a new object appears whole, so
 * readers never see part of one) and deletes the temporary key. A single copy is limited to
 * 5 GiB by S3, so keep MAX_FILE_BYTES at or below that with this store. Temporary keys a crash
 * left behind are removed by a lifecycle rule on the `.incoming/` prefix (docs/operations.md).
 */
export function s3FileStore(
  settings: S3FileStoreSettings,
  client = s3ClientOf(settings),
): PublishedFileStore {
  const { bucket } = settings;
  const prefix = settings.prefix ?? '';
  const keyOf = (storagePath: string) => `${prefix}${storagePath}`;
  const deleteKey = async (key: string) => {
    await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
  };

  return {
    kind: 's3',
    createIncoming() {
      const key = `${prefix}${INCOMING_PREFIX}${randomUUID()}`;
      const body = new PassThrough({ highWaterMark: PART_BYTES });
      const upload = new Upload({
        client,
        params: { Bucket: bucket, Key: key, Body: body },
        partSize: PART_BYTES,
        queueSize: PARTS_IN_FLIGHT,
        leavePartsOnError: false,
      });
      const done = upload.done();
      // Observed by `stored()` or `abort()`; never an unhandled rejection in between.
      done.catch(() => undefined);
      return Promise.resolve({
        ref: key,
        stream: body,
        stored: async () => {
          await done;
        },
        abort: async () => {
          body.destroy();
          await upload.abort().catch(() => undefined);
          await done.catch(() => undefined);
          await deleteKey(key);
        },
      });
    },
    discardIncoming: (ref) => deleteKey(ref),
    async publish(ref, fileHash) {
      const storagePath = storagePathOf(fileHash);
      await client.send(
        new CopyObjectCommand({
          Bucket: bucket,
          Key: keyOf(storagePath),
          CopySource: `${bucket}/${ref.split('/').map(encodeURIComponent).join('/')}`,
        }),
      );
      await deleteKey(ref);
      return storagePath;
    },
    async isStored(fileHash) {
      try {
        await client.send(
          new HeadObjectCommand({ Bucket: bucket, Key: keyOf(storagePathOf(fileHash)) }),
        );
        return true;
      } catch (error) {
        if (isNotFound(error)) return false;
        throw error;
      }
    },
    remove: (fileHash) => deleteKey(keyOf(storagePathOf(fileHash))),
    async size(storagePath) {
      const head = await client.send(
        new HeadObjectCommand({ Bucket: bucket, Key: keyOf(storagePath) }),
      );
      if (head.ContentLength === undefined) throw new Error(`no size for ${storagePath}`);
      return head.ContentLength;
    },
    async read(storagePath, range) {
      const object = await client.send(
        new GetObjectCommand({
          Bucket: bucket,
          Key: keyOf(storagePath),
          ...(range === undefined
            ? {}
            : { Range: `bytes=${String(range.start)}-${String(range.end)}` }),
        }),
      );
      if (object.Body === undefined) throw new Error(`no body for ${storagePath}`);
      return object.Body as Readable;
    },
  };
}
