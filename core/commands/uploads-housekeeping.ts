/**
 * Uploads an agent made but never sent: the app uploads a file as soon as it is attached, and a
 * draft abandoned (or a file removed before sending) leaves it behind. An upload no message of
 * its conversation references a day later (a website visitor's: an hour later) is removed, bytes
 * and row (they count against the plan's storage). Customers' media (source `inbound`) always belong to a message: never swept.
 */
import { z } from 'zod';
import { sql, type Queryable } from '../adapters/postgres/db.ts';
import { storageDrivers } from '../adapters/storage.ts';
import { removeStoredFiles, type StorageSettings } from '../adapters/storage-for.ts';

/** How old an agent's unused upload is before it is removed. */
export const UNATTACHED_UPLOAD_TTL_HOURS = 24;
/**
 * A website visitor's (uploaded_by null): an hour. Anonymous files must not pile up in the
 * business's storage (issue #36 item 4); the widget sends its file with a message at once.
 */
export const UNATTACHED_VISITOR_UPLOAD_TTL_HOURS = 1;

/** Removes up to `batch` unused uploads older than the TTL; returns how many. */
export async function removeUnattachedUploads(db: Queryable, storage: StorageSettings, batch = 200): Promise<number> {
  return db.transaction(async (tx) => {
    const gone = await tx.any(sql.type(z.object({ business_id: z.string(), storage_key: z.string(), driver: z.enum(storageDrivers) }))`
      delete from uploads u where u.id in (
        select c.id from uploads c
        where c.source = 'upload' and c.created_at < now() - make_interval(hours => ${UNATTACHED_VISITOR_UPLOAD_TTL_HOURS})
          and (c.uploaded_by is null or c.created_at < now() - make_interval(hours => ${UNATTACHED_UPLOAD_TTL_HOURS}))
          and not exists (
            select 1 from messages m
            where m.business_id = c.business_id
              -- A visitor's file may be uploaded before its conversation exists.
              and (m.conversation_id = c.conversation_id or c.conversation_id is null)
              and strpos(m.attachments::text, c.storage_key) > 0)
        order by c.created_at limit ${batch}
        for update skip locked)
      returning u.business_id, u.storage_key, u.driver`);
    // The postgres driver's chunks went with the rows; files on disk or in S3 go now, each where its row says.
    await removeStoredFiles(tx, storage, gone);
    return gone.length;
  });
}
