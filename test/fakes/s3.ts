/**
 * A real S3-protocol server on 127.0.0.1 (the `s3rver` package: SigV4-checked requests,
 * multipart uploads, ranges, S3's XML errors) with one bucket, for the `s3` storage driver.
 * Its credentials are s3rver's own pair; the driver finds them where the AWS SDK's default chain
 * looks first (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY), which `env` holds for a child process
 * and `useCredentials()` sets in this one.
 *
 *   const s3 = await startFakeS3();
 *   startTestApp({ env: { STORAGE_DRIVER: 's3', ...s3.config } });
 *   await s3.object(key); // the bytes, or null
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CreateBucketCommand, GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';

export type FakeS3 = {
  endpoint: string;
  bucket: string;
  /** S3_BUCKET, S3_ENDPOINT, S3_REGION for Parley. */
  config: Record<string, string>;
  /** The SDK's default-chain credentials for a child process's environment. */
  env: Record<string, string>;
  /** Sets `env` in this process (the driver under test reads the default chain). */
  useCredentials: () => void;
  /** An object's bytes, or null when there is none. */
  object: (key: string) => Promise<Buffer | null>;
  keys: () => Promise<string[]>;
  close: () => Promise<void>;
};

const credentials = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

export async function startFakeS3(bucket = 'parley-files'): Promise<FakeS3> {
  const directory = mkdtempSync(path.join(os.tmpdir(), 'parley-s3-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory });
  const { port } = (await server.run()) as unknown as { port: number };
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials });
  await client.send(new CreateBucketCommand({ Bucket: bucket }));
  const env = { AWS_ACCESS_KEY_ID: credentials.accessKeyId, AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey };
  return {
    endpoint,
    bucket,
    config: { S3_BUCKET: bucket, S3_ENDPOINT: endpoint, S3_REGION: 'us-east-1' },
    env,
    useCredentials: () => Object.assign(process.env, env),
    object: async (key) => {
      try {
        const answer = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
        return Buffer.from(await answer.Body!.transformToByteArray());
      } catch (error) {
        if ((error as { name?: string }).name === 'NoSuchKey') return null;
        throw error;
      }
    },
    keys: async () => {
      const listed = await client.send(new ListObjectsV2Command({ Bucket: bucket }));
      return (listed.Contents ?? []).map((o) => o.Key!).sort();
    },
    close: async () => {
      client.destroy();
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
