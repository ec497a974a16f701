/** A channel's config as connectors read it: field → value (credentials included; decrypted). */
export type ChannelConfig = Record<string, string>;
