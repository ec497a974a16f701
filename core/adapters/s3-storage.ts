/**
 * The `s3` storage driver (STORAGE_DRIVER=s3): one object per file, named by its storage key, in
 * S3_BUCKET of Amazon S3 or any S3-compatible service (MinIO, Ceph, R2, …: S3_ENDPOINT, which
 * also turns on path-style addressing). Credentials come from the AWS SDK's default chain
 * (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, AWS_PROFILE, web identity, instance roles…).
 *
 * Streamed both ways: writes go through lib-storage's Upload (one PutObject for a small file,
 * else a multipart upload of 5 MiB parts, one part in flight), reads are GetObject's body stream,
 * a range read is S3's own `Range`. The SDK (about 20 MiB of RSS) loads on first use.
 */
import { Readable } from 'node:stream';
import type { S3Client } from '@aws-sdk/client-s3';
import { lazyModule } from '../../lib/lazy-module.ts';
import { FileTooLargeError, limited, type FileStorage } from './storage.ts';

export type S3Settings = { S3_BUCKET?: string | undefined; S3_ENDPOINT?: string | undefined; S3_REGION: string };

const s3Sdk = lazyModule(() => import('@aws-sdk/client-s3'));
const s3Upload = lazyModule(() => import('@aws-sdk/lib-storage'));

/** S3's smallest multipart part: the most a write holds in memory at once. */
const PART_BYTES = 5 * 1024 * 1024;

const clients = new Map<string, S3Client>();

/** One client (and its connection pool) per endpoint and region, for the process's life. */
async function clientFor(settings: S3Settings): Promise<S3Client> {
  const id = `${settings.S3_ENDPOINT ?? ''}|${settings.S3_REGION}`;
  const known = clients.get(id);
  if (known) return known;
  const { S3Client } = await s3Sdk.load();
  const client = new S3Client({
    region: settings.S3_REGION,
    ...(settings.S3_ENDPOINT ? { endpoint: settings.S3_ENDPOINT, forcePathStyle: true } : {}),
    // Checksums only where S3 requires them: several S3-compatible services refuse the SDK's
    // newer default trailing checksums on streamed uploads.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  clients.set(id, client);
  return client;
}

function bucketOf(settings: S3Settings): string {
  if (!settings.S3_BUCKET) throw new Error('STORAGE_DRIVER=s3 needs S3_BUCKET');
  return settings.S3_BUCKET;
}

/** The SDK's "no such object" (GetObject answers NoSuchKey; a HEAD or some services just 404). */
function isMissing(error: unknown): boolean {
  const failure = error as { name?: string; $metadata?: { httpStatusCode?: number } } | null;
  return failure?.name === 'NoSuchKey' || failure?.name === 'NotFound' || failure?.$metadata?.httpStatusCode === 404;
}

export function s3Storage(settings: S3Settings): FileStorage {
  return {
    driver: 's3',
    write: async (_q, file, source, limit) => {
      const client = await clientFor(settings);
      const { Upload } = await s3Upload.load();
      const counter = { size: 0 };
      const upload = new Upload({
        client,
        params: { Bucket: bucketOf(settings), Key: file.key, Body: Readable.from(limited(source, limit, counter)) },
        partSize: PART_BYTES,
        queueSize: 1,
        // A failed multipart upload is aborted, its parts removed.
        leavePartsOnError: false,
      });
      try {
        await upload.done();
      } catch (error) {
        // The limit is the reason whatever the SDK wrapped it in.
        if (counter.size > limit) throw new FileTooLargeError(limit);
        throw error;
      }
      return { size: counter.size, chunkSize: null };
    },
    read: async (_q, file, range) => {
      const client = await clientFor(settings);
      const { GetObjectCommand } = await s3Sdk.load();
      try {
        const answer = await client.send(
          new GetObjectCommand({ Bucket: bucketOf(settings), Key: file.key, ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}) }),
        );
        // In Node the body is the response stream itself (an IncomingMessage).
        return answer.Body instanceof Readable ? answer.Body : Readable.from((answer.Body as AsyncIterable<Uint8Array> | undefined) ?? []);
      } catch (error) {
        if (isMissing(error)) return null;
        throw error;
      }
    },
    remove: async (_q, file) => {
      const client = await clientFor(settings);
      const { DeleteObjectCommand } = await s3Sdk.load();
      await client.send(new DeleteObjectCommand({ Bucket: bucketOf(settings), Key: file.key }));
    },
  };
}
