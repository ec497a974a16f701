/**
 * The storage driver a file row names (reading, removing), or the configured one (writing):
 * core/adapters/storage.ts (postgres, disk) and core/adapters/s3-storage.ts (s3).
 */
import type { Config } from '../config.ts';
import { s3Storage } from './s3-storage.ts';
import { diskStorage, postgresStorage, type FileStorage, type StorageDriver } from './storage.ts';

/** What the drivers need of the configuration. */
export type StorageSettings = Pick<Config, 'dataDir' | 'S3_BUCKET' | 'S3_ENDPOINT' | 'S3_REGION'>;

export function storageFor(driver: StorageDriver, settings: StorageSettings): FileStorage {
  if (driver === 'postgres') return postgresStorage;
  if (driver === 'disk') return diskStorage(settings.dataDir);
  return s3Storage(settings);
}

/** The bytes of deleted upload rows, each through the driver it names (postgres: gone with the rows). After commit. */
export async function removeStoredFiles(
  q: Parameters<FileStorage['remove']>[0],
  settings: StorageSettings,
  files: readonly { business_id: string; storage_key: string; driver: StorageDriver }[],
): Promise<void> {
  for (const file of files) {
    if (file.driver === 'postgres') continue;
    await storageFor(file.driver, settings).remove(q, { businessId: file.business_id, key: file.storage_key });
  }
}
