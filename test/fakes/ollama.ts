/**
 * A fake Ollama on 127.0.0.1 (OLLAMA_URL), answering as Ollama does: `POST /api/embed`
 * `{model, input}` → `{model, embeddings}`, `POST /api/chat` `{model, messages, format, stream}`
 * → `{model, message:{role, content}, done}`, JSON errors `{error}` (404 for a model that is
 * not pulled, 400 for a bad request).
 *
 *   const ollama = await startFakeOllama();
 *   app = await startTestApp({ env: { OLLAMA_URL: ollama.url } });
 *   ollama.scriptChat('refund', { json: { action: 'reply', reply: 'Within 30 days.', confidence: 0.9 } });
 *   ollama.failNext(3, 503); ollama.setDown(true);
 *
 * Embeddings are deterministic hashed bags of words (`fakeEmbedding`): texts sharing more
 * words are closer, texts sharing none have similarity 0. Chat answers are scripted per text:
 * the first script whose `match` occurs in the request's messages answers, so tests running
 * at the same time each get their own; without a match the model asks for a human.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Size of the fake's vectors (nomic-embed-text's size). */
export const FAKE_EMBEDDING_SIZE = 768;

/** What a scripted chat request gets: a JSON content, a raw content string, or an HTTP error. */
export type ChatAnswer = { json: unknown } | { raw: string } | { status: number; error?: string };

export type EmbedRequest = { model: string; input: string[] };
export type ChatRequest = {
  model: string;
  messages: { role: string; content: string }[];
  format?: unknown;
  stream?: boolean;
  options?: Record<string, unknown>;
};

export type FakeOllama = {
  url: string;
  embedRequests: EmbedRequest[];
  chatRequests: ChatRequest[];
  /** Models that are "pulled"; any other answers 404 (default nomic-embed-text and llama3.1). */
  models: Set<string>;
  /**
   * Requests whose messages contain `match` get these answers in turn (the last one repeats).
   * A later script for the same text replaces the earlier one.
   */
  scriptChat: (match: string, ...answers: ChatAnswer[]) => void;
  /** The next `count` requests (embed or chat) answer `status` with an Ollama error body. */
  failNext: (count: number, status: number, error?: string) => void;
  /** While down, every connection is cut without an answer (as if nothing listened). */
  setDown: (down: boolean) => void;
  close: () => Promise<void>;
};

const STOPWORDS = new Set(
  'a an and are as at be but by can do does for from has have how i if in is it its my no not of on or our so that the their them then there this to was we what when where which who why will with you your'.split(
    ' ',
  ),
);

/** Lower-cased words without stopwords and without a plural "s": the fake's idea of meaning. */
export function fakeTokens(text: string): string[] {
  return (
    text
      .toLowerCase()
      .replace(/^search_(document|query): /, '')
      .match(/[a-z0-9]+/g) ?? []
  )
    .filter((w) => w.length > 1 && !STOPWORDS.has(w))
    .map((w) => (w.length > 3 && w.endsWith('s') && !w.endsWith('ss') ? w.slice(0, -1) : w));
}

function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

/** A word-count vector hashed into FAKE_EMBEDDING_SIZE buckets (not normalised, like some real models). */
export function fakeEmbedding(text: string): number[] {
  const vector = new Array<number>(FAKE_EMBEDDING_SIZE).fill(0);
  for (const token of fakeTokens(text)) vector[fnv1a(token) % FAKE_EMBEDDING_SIZE]! += 1;
  return vector;
}

async function readJson(request: IncomingMessage): Promise<any> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    return undefined;
  }
}

function reply(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  response.end(JSON.stringify(body));
}

export async function startFakeOllama(): Promise<FakeOllama> {
  const embedRequests: EmbedRequest[] = [];
  const chatRequests: ChatRequest[] = [];
  const models = new Set(['nomic-embed-text', 'llama3.1']);
  const scripts: { match: string; answers: ChatAnswer[]; used: number }[] = [];
  const failures: { status: number; error: string }[] = [];
  let down = false;

  const notPulled = (model: string) => ({ error: `model "${model}" not found, try pulling it first` });

  function answerChat(request: ChatRequest, response: ServerResponse): void {
    const text = request.messages.map((m) => m.content).join('\n');
    const script = scripts.find((s) => text.includes(s.match));
    const answer: ChatAnswer = script
      ? script.answers[Math.min(script.used++, script.answers.length - 1)]!
      : { json: { action: 'handoff', reason: 'No script for this conversation', confidence: 0 } };
    if ('status' in answer) return reply(response, answer.status, { error: answer.error ?? 'scripted failure' });
    const content = 'raw' in answer ? answer.raw : JSON.stringify(answer.json);
    reply(response, 200, {
      model: request.model,
      created_at: new Date().toISOString(),
      message: { role: 'assistant', content },
      done_reason: 'stop',
      done: true,
    });
  }

  const server = createServer(async (req, res) => {
    if (down) {
      req.socket.destroy();
      return;
    }
    const body = await readJson(req);
    const path = new URL(req.url ?? '/', 'http://fake').pathname;
    if (req.method !== 'POST' || (path !== '/api/embed' && path !== '/api/chat')) return reply(res, 404, { error: '404 page not found' });
    if (!body || typeof body.model !== 'string') return reply(res, 400, { error: 'invalid request: model is required' });
    if (path === '/api/embed') {
      const input: unknown = body.input;
      const inputs = typeof input === 'string' ? [input] : input;
      if (!Array.isArray(inputs) || inputs.some((i) => typeof i !== 'string')) return reply(res, 400, { error: 'invalid input type' });
      embedRequests.push({ model: body.model, input: inputs as string[] });
    } else {
      if (!Array.isArray(body.messages)) return reply(res, 400, { error: 'invalid request: messages are required' });
      chatRequests.push(body as ChatRequest);
    }
    const failure = failures.shift();
    if (failure) return reply(res, failure.status, { error: failure.error });
    if (!models.has(body.model)) return reply(res, 404, notPulled(body.model));
    if (path === '/api/chat') return answerChat(body as ChatRequest, res);
    const inputs: string[] = typeof body.input === 'string' ? [body.input] : body.input;
    reply(res, 200, { model: body.model, embeddings: inputs.map(fakeEmbedding), total_duration: 1, load_duration: 0, prompt_eval_count: inputs.length });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    embedRequests,
    chatRequests,
    models,
    scriptChat: (match, ...answers) => {
      const existing = scripts.findIndex((s) => s.match === match);
      if (existing >= 0) scripts.splice(existing, 1);
      scripts.push({ match, answers, used: 0 });
    },
    failNext: (count, status, error = status >= 500 ? 'llama runner process has terminated' : 'bad request') => {
      for (let i = 0; i < count; i += 1) failures.push({ status, error });
    },
    setDown: (value) => {
      down = value;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
