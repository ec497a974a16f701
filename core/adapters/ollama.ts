/**
 * Ollama (OLLAMA_URL): embeddings for the knowledge base, chat for the AI agent. Every failure
 * comes out as an OllamaError that says whether trying again can help: an unreachable server,
 * a timeout, 5xx, 408 and 429 are transient; any other 4xx (a model that is not pulled, a bad
 * request) and a malformed answer are permanent.
 */
import type { Message, Ollama } from 'ollama';
import { z } from 'zod';
import type { Config } from '../config.ts';
import { lazyModule } from '../../lib/lazy-module.ts';

/** ollama-js loads with the first call: a server without OLLAMA_URL never needs it. */
const ollamaLibrary = lazyModule(() => import('ollama'));

export type OllamaFailureKind = 'transient' | 'permanent';

export class OllamaError extends Error {
  readonly kind: OllamaFailureKind;
  /** Ollama's HTTP status; null when no answer came (connection refused, timeout). */
  readonly status: number | null;
  constructor(kind: OllamaFailureKind, message: string, status: number | null = null) {
    super(message);
    this.name = 'OllamaError';
    this.kind = kind;
    this.status = status;
  }
}

/** Ollama settings taken from the configuration. */
export type OllamaConfig = Pick<Config, 'OLLAMA_URL' | 'OLLAMA_EMBED_MODEL' | 'OLLAMA_CHAT_MODEL'>;

/** Embedding calls answer in well under a second on a warm model; 30 s also covers loading it. */
export const EMBED_TIMEOUT_MS = 30_000;
/** A local model on a CPU can take a minute to write an answer. */
export const CHAT_TIMEOUT_MS = 120_000;

/** ollama-js has no timeout of its own: every request gets one, so a hung server cannot hold a job or a request forever. */
function timedFetch(timeoutMs: number): typeof fetch {
  return (input, init) => {
    const timeout = AbortSignal.timeout(timeoutMs);
    return fetch(input, { ...init, signal: init?.signal ? AbortSignal.any([init.signal, timeout]) : timeout });
  };
}

async function client(config: OllamaConfig, timeoutMs: number): Promise<Ollama> {
  const { Ollama } = await ollamaLibrary.load();
  return new Ollama({ host: config.OLLAMA_URL, fetch: timedFetch(timeoutMs) });
}

/** Turns anything ollama-js or fetch threw into an OllamaError. */
export function toOllamaError(error: unknown): OllamaError {
  if (error instanceof OllamaError) return error;
  const e = error as { name?: string; message?: string; status_code?: unknown; cause?: { code?: string; message?: string } };
  // ollama-js does not export ResponseError; it is recognised by name and status.
  if (e?.name === 'ResponseError' && typeof e.status_code === 'number') {
    const status = e.status_code;
    const transient = status >= 500 || status === 408 || status === 429;
    return new OllamaError(transient ? 'transient' : 'permanent', `Ollama answered ${status}: ${e.message ?? ''}`.trim(), status);
  }
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError') return new OllamaError('transient', 'Ollama did not answer in time');
  const cause = e?.cause?.code ?? e?.cause?.message;
  return new OllamaError('transient', `Ollama cannot be reached${cause ? ` (${cause})` : e?.message ? ` (${e.message})` : ''}`);
}

const embedResponse = z.object({ embeddings: z.array(z.array(z.number().finite()).min(1)) });

/** One vector per input, in order, all of one size. */
export async function embed(config: OllamaConfig, inputs: string[], options: { timeoutMs?: number } = {}): Promise<number[][]> {
  if (inputs.length === 0) return [];
  let raw: unknown;
  try {
    raw = await (await client(config, options.timeoutMs ?? EMBED_TIMEOUT_MS)).embed({ model: config.OLLAMA_EMBED_MODEL, input: inputs });
  } catch (error) {
    throw toOllamaError(error);
  }
  const parsed = embedResponse.safeParse(raw);
  if (!parsed.success || parsed.data.embeddings.length !== inputs.length) {
    throw new OllamaError('permanent', `Ollama returned no usable embeddings for ${inputs.length} input${inputs.length === 1 ? '' : 's'}`);
  }
  const size = parsed.data.embeddings[0]!.length;
  if (parsed.data.embeddings.some((v) => v.length !== size)) throw new OllamaError('permanent', 'Ollama returned embeddings of different sizes');
  return parsed.data.embeddings;
}

export type ChatMessage = Pick<Message, 'role' | 'content'>;

/**
 * One non-streamed chat answer constrained by `format` (a JSON schema); returns the raw
 * `message.content` for the caller to parse and validate.
 */
export async function chatJson(config: OllamaConfig, messages: ChatMessage[], format: object, options: { timeoutMs?: number } = {}): Promise<string> {
  let raw: unknown;
  try {
    raw = await (await client(config, options.timeoutMs ?? CHAT_TIMEOUT_MS)).chat({
      model: config.OLLAMA_CHAT_MODEL,
      messages,
      format,
      stream: false,
      // A support answer should be the same answer each time, not a creative one.
      options: { temperature: 0 },
    });
  } catch (error) {
    throw toOllamaError(error);
  }
  const content = (raw as { message?: { content?: unknown } })?.message?.content;
  if (typeof content !== 'string') throw new OllamaError('permanent', 'Ollama returned a chat answer without content');
  return content;
}
