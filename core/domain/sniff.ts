/**
 * The real type of a customer's file, from its first bytes: platforms label media loosely
 * (Instagram says only "image", Twilio passes on what the phone said), and a file is served with
 * the type stored here. A type that is neither recognised nor declared as an accepted one is
 * stored as application/octet-stream: offered as a download, never rendered.
 */
import { allowedUploadTypes, uploadContentType } from './uploads.ts';

const ascii = (bytes: Uint8Array, at: number, text: string) => {
  if (bytes.length < at + text.length) return false;
  for (let i = 0; i < text.length; i++) if (bytes[at + i] !== text.charCodeAt(i)) return false;
  return true;
};
const startsWith = (bytes: Uint8Array, prefix: number[]) => prefix.every((b, i) => bytes[i] === b);

/** The type the leading bytes show, or null when they show none this knows. */
export function sniffContentType(head: Uint8Array): string | null {
  if (startsWith(head, [0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (startsWith(head, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (ascii(head, 0, 'GIF87a') || ascii(head, 0, 'GIF89a')) return 'image/gif';
  if (ascii(head, 0, 'RIFF') && ascii(head, 8, 'WEBP')) return 'image/webp';
  if (ascii(head, 0, 'RIFF') && ascii(head, 8, 'WAVE')) return 'audio/wav';
  if (ascii(head, 0, '%PDF-')) return 'application/pdf';
  if (ascii(head, 0, 'OggS')) return ascii(head, 28, 'OpusHead') ? 'audio/ogg' : ascii(head, 29, 'theora') ? 'video/ogg' : 'audio/ogg';
  if (ascii(head, 0, '#!AMR')) return 'audio/amr';
  if (ascii(head, 0, 'ID3') || (head[0] === 0xff && (head[1] & 0xe0) === 0xe0 && (head[1] & 0x06) !== 0)) {
    // ADTS AAC also starts 0xFFF: layer bits 00 are AAC, anything else MPEG audio.
    return head[0] === 0xff && (head[1] & 0x06) === 0 ? 'audio/aac' : 'audio/mpeg';
  }
  if (startsWith(head, [0x1a, 0x45, 0xdf, 0xa3])) return 'video/webm';
  if (ascii(head, 4, 'ftyp')) {
    const brand = String.fromCharCode(...head.subarray(8, 12));
    if (/^(heic|heix|hevc|heim|heis)$/.test(brand)) return 'image/heic';
    if (/^(mif1|msf1)$/.test(brand)) return 'image/heif';
    if (/^(M4A |M4B )$/.test(brand)) return 'audio/mp4';
    if (/^qt {2}$/.test(brand)) return 'video/quicktime';
    if (/^3g/.test(brand)) return 'video/3gpp';
    return 'video/mp4';
  }
  // Office documents (OOXML, ODF) are zip files: their declared type decides which.
  if (startsWith(head, [0x50, 0x4b, 0x03, 0x04])) return 'application/zip';
  if (startsWith(head, [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1])) return 'application/x-ole-storage';
  if (ascii(head, 0, '{\\rtf')) return 'application/rtf';
  return null;
}

const ZIP_BASED = new Set([
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  'application/vnd.oasis.opendocument.text',
  'application/vnd.oasis.opendocument.spreadsheet',
  'application/vnd.oasis.opendocument.presentation',
]);
const OLE_BASED = new Set(['application/msword', 'application/vnd.ms-excel', 'application/vnd.ms-powerpoint']);
const TEXT_TYPES = new Set(['text/plain', 'text/csv']);

/** Bytes that are plausibly text (no NUL, few control characters). */
function looksLikeText(head: Uint8Array): boolean {
  let control = 0;
  for (const b of head) {
    if (b === 0) return false;
    if (b < 0x09 || (b > 0x0d && b < 0x20)) control += 1;
  }
  return control <= head.length / 100;
}

/**
 * The type to store: the sniffed one when it is an accepted type; for container formats (zip,
 * OLE) and text the declared one when it fits; otherwise application/octet-stream. The declared
 * type never makes bytes into something they are not (an "image/png" that is HTML is a download).
 */
export function decideContentType(head: Uint8Array, declared: string | null | undefined, filename: string): string {
  const claimed = uploadContentType(declared, filename) ?? uploadContentType(null, filename);
  const sniffed = sniffContentType(head);
  if (sniffed === 'application/zip') return claimed && ZIP_BASED.has(claimed) ? claimed : 'application/octet-stream';
  if (sniffed === 'application/x-ole-storage') return claimed && OLE_BASED.has(claimed) ? claimed : 'application/octet-stream';
  if (sniffed && allowedUploadTypes.has(sniffed)) {
    // Audio in an MP4 or Ogg container: keep the declared audio/video flavour of the same container.
    if (claimed && claimed !== sniffed && sameContainer(claimed, sniffed)) return claimed;
    return sniffed;
  }
  if (!sniffed && claimed && TEXT_TYPES.has(claimed) && looksLikeText(head)) return claimed;
  return 'application/octet-stream';
}

function sameContainer(a: string, b: string): boolean {
  const families = [
    ['video/mp4', 'audio/mp4', 'video/quicktime', 'video/3gpp'],
    ['audio/ogg', 'audio/opus', 'video/ogg'],
    ['video/webm', 'audio/webm'],
    ['image/heic', 'image/heif'],
  ];
  return families.some((family) => family.includes(a) && family.includes(b));
}

/** A file name for media that came without one: `photo.jpg`, `voice.ogg`, `file.pdf`. */
export function defaultFilename(contentType: string): string {
  const ext = Object.entries(extensions).find(([, type]) => type === contentType)?.[0] ?? 'bin';
  const stem = contentType.startsWith('image/') ? 'photo' : contentType.startsWith('audio/') ? 'audio' : contentType.startsWith('video/') ? 'video' : 'file';
  return `${stem}.${ext}`;
}

const extensions: Record<string, string> = {
  jpg: 'image/jpeg',
  png: 'image/png',
  gif: 'image/gif',
  webp: 'image/webp',
  heic: 'image/heic',
  heif: 'image/heif',
  mp3: 'audio/mpeg',
  m4a: 'audio/mp4',
  aac: 'audio/aac',
  ogg: 'audio/ogg',
  opus: 'audio/opus',
  wav: 'audio/wav',
  amr: 'audio/amr',
  weba: 'audio/webm',
  mp4: 'video/mp4',
  webm: 'video/webm',
  mov: 'video/quicktime',
  '3gp': 'video/3gpp',
  ogv: 'video/ogg',
  pdf: 'application/pdf',
  txt: 'text/plain',
  csv: 'text/csv',
  rtf: 'application/rtf',
};
