/**
 * Multipart uploads of one file (field `file`), for agents and website visitors alike: koa-body
 * with formidable's limits, a Content-Length already over the limit refused before reading,
 * temp files removed once the response is done (a stored file has been moved away by then),
 * also when authentication or validation refused the request.
 */
import { unlink } from 'node:fs/promises';
import type { Context, Middleware } from 'koa';
import { HttpMethodEnum, koaBody } from 'koa-body';
import type { File } from 'formidable';
import { HttpError, validationError } from '../core/errors.ts';
import { cleanFilename, maxUploadBytes, uploadContentType } from '../core/domain/uploads.ts';

/** 413 with the limit in MiB. */
export const tooLarge = (limitBytes: number) => new HttpError(413, { detail: `File too large: the limit is ${limitBytes / (1024 * 1024)} MiB` });
export const fileIssue = (msg: string, type = 'value_error') => validationError([{ loc: ['body', 'file'], msg, type }]);

/** Temp files the parser wrote, whatever happens to the request afterwards. */
export const receivedFiles = (ctx: Context): File[] => {
  const files = (ctx.request as { files?: Record<string, File | File[]> }).files ?? {};
  return Object.values(files).flat();
};

/** The limits of one kind of one-file multipart body. */
export type OneFileLimits = {
  /** The file's size limit. */
  maxBytes: number;
  maxFields: number;
  maxFieldsSize: number;
  /** A Content-Length over maxBytes plus this (the form's other parts) is refused before reading. */
  headroomBytes: number;
};

/**
 * koa-body multipart with formidable's limits for one file; a Content-Length already over the
 * limit is refused before reading. Temp files are removed once the response is done (a stored
 * file has been moved away by then), also when authentication or validation refused the request.
 */
export function oneFileMultipart(limits: OneFileLimits): Middleware {
  const parser = koaBody({
    multipart: true,
    json: false,
    urlencoded: false,
    text: false,
    parsedMethods: [HttpMethodEnum.POST],
    formidable: {
      maxFiles: 1,
      maxFileSize: limits.maxBytes,
      maxTotalFileSize: limits.maxBytes,
      maxFields: limits.maxFields,
      maxFieldsSize: limits.maxFieldsSize,
      allowEmptyFiles: false,
      minFileSize: 1,
      keepExtensions: false,
    },
    onError: (error) => {
      const { httpCode, code } = error as Error & { httpCode?: number; code?: number };
      // formidable answers 413 for every limit: say which one was passed (a tiny request with
      // two files is not "too large").
      if (code === 1015) throw new HttpError(413, { detail: 'Too many files: send one file (field `file`) per request' });
      if (code === 1007) throw new HttpError(413, { detail: `Too many form fields: at most ${limits.maxFields}` });
      if (code === 1006) throw new HttpError(413, { detail: `Form fields too large: at most ${limits.maxFieldsSize / 1024} KiB in all` });
      if (httpCode === 413) throw tooLarge(limits.maxBytes);
      // formidable's "file size should be greater than 0" (noEmptyFiles / smallerThanMinFileSize)
      if (code === 1010 || code === 1008) throw fileIssue('The file is empty');
      throw fileIssue('Could not read the multipart body');
    },
  });
  return async (ctx, next) => {
    const length = Number(ctx.get('Content-Length'));
    if (Number.isFinite(length) && length > limits.maxBytes + limits.headroomBytes) throw tooLarge(limits.maxBytes);
    ctx.res.once('close', () => {
      for (const file of receivedFiles(ctx)) unlink(file.filepath).catch(() => {});
    });
    await parser(ctx, next);
  };
}

/** Agent and visitor uploads (core/domain/uploads.ts limits). */
export const multipart: Middleware = oneFileMultipart({ maxBytes: maxUploadBytes, maxFields: 20, maxFieldsSize: 64 * 1024, headroomBytes: 1024 * 1024 });

/**
 * The one file of the request (field `file`): 422 when missing, its cleaned name, and its type
 * by the upload rules (core/domain/uploads.ts); 415 when the type is not accepted, or not one of
 * `only` when given.
 */
export function uploadedFile(ctx: Context, only?: (contentType: string) => boolean): { path: string; filename: string; contentType: string } {
  const files = (ctx.request as { files?: Record<string, File | File[]> }).files ?? {};
  const field = files.file;
  const file = Array.isArray(field) ? field[0] : field;
  if (!file) throw fileIssue('Field required', 'missing');
  const filename = cleanFilename(file.originalFilename);
  const contentType = uploadContentType(file.mimetype, filename);
  if (!contentType || (only && !only(contentType))) throw new HttpError(415, { detail: `Unsupported file type: ${file.mimetype ?? 'unknown'}` });
  return { path: file.filepath, filename, contentType };
}
