/** Types of bin/stripped-sources.js (plain JavaScript, loaded before any TypeScript). */
export declare const root: string;
export declare const strippedDir: string;
/** The entry's file name for a .ts file's bytes: the sha256 of them, hex, with `.js`. */
export declare function entryName(source: Uint8Array): string;
