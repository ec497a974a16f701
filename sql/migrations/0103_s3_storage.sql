-- The `s3` storage driver (STORAGE_DRIVER=s3, core/adapters/s3-storage.ts): an upload's bytes
-- may also be an object in S3_BUCKET. A row names its driver, so every file stays readable
-- whatever the setting becomes.
alter table uploads drop constraint uploads_driver_check;
alter table uploads add constraint uploads_driver_check check (driver in ('disk', 'postgres', 's3'));
