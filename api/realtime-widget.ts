/**
 * Live replies for website visitors: the Socket.IO namespace `/widget` on the API's own
 * origin (path `/socket.io`). A visitor connects with `auth: {visitor_token}` from
 * POST /api/v1/visitor/sessions and is put in its room `visitor:<customer uuid>`, which
 * receives `message_created` with the visitor's message shape (core/reads/visitor-messages.ts) for
 * every agent or AI reply and for the visitor's own messages (so their other tabs follow), and
 * `typing` while an agent writes a reply. The one thing accepted from the client is `typing
 * {typing}`, relayed to the dashboards of the visitor's own conversation (api/realtime-signals.ts).
 * The socket is disconnected when the visitor token expires.
 *
 * Refusals are a `connect_error` whose message (and `data.detail`) is the REST text: `Not
 * authenticated` (no token), `Could not validate credentials` (a bad token, an access token,
 * a deleted visitor), `Widget not found` (the widget's channel is inactive).
 *
 * Widgets run on any origin: they connect with `transports: ['websocket']`, which needs no
 * CORS (long polling would answer only CORS_ORIGINS) and no sticky sessions across nodes.
 */
import type { Namespace, Server, Socket } from 'socket.io';
import type { Deps } from '../core/deps.ts';
import { HttpError } from '../core/errors.ts';
import { loadVisitor, type Visitor } from '../core/commands/visitors.ts';
import { verifyVisitorToken } from '../core/domain/visitors/visitor-tokens.ts';
import { rooms, WIDGET_NAMESPACE } from '../core/events/bus.ts';
import { disconnectAtExpiry } from './socket-expiry.ts';
import { attachVisitorSignals } from './realtime-signals.ts';

type NoEvents = Record<string, never>;
type WidgetSocketData = { visitor: Visitor; exp: number };
type WidgetSocket = Socket<NoEvents, NoEvents, NoEvents, WidgetSocketData>;

function refusal(detail: string): Error & { data: { detail: string } } {
  return Object.assign(new Error(detail), { data: { detail } });
}

async function authenticateVisitor(socket: WidgetSocket, deps: Deps): Promise<{ visitor: Visitor; exp: number }> {
  const token: unknown = socket.handshake.auth?.visitor_token;
  if (typeof token !== 'string' || !token.trim()) throw refusal('Not authenticated');
  const claims = await verifyVisitorToken(deps.config.jwtSecret, token.trim());
  if (!claims) throw refusal('Could not validate credentials');
  try {
    return { visitor: await loadVisitor(deps.db, claims), exp: claims.exp };
  } catch (error) {
    if (error instanceof HttpError) throw refusal(String(error.body.detail));
    deps.logger.error({ err: error }, 'widget socket authentication failed');
    throw refusal('Internal server error');
  }
}

export function attachWidgetNamespace(io: Server<any, any, any, any>, deps: Deps, closing: () => boolean = () => false): Namespace {
  const nsp = io.of(WIDGET_NAMESPACE) as Namespace<NoEvents, NoEvents, NoEvents, WidgetSocketData>;
  nsp.use((socket, next) => {
    authenticateVisitor(socket, deps).then(
      ({ visitor, exp }) => {
        socket.data.visitor = visitor;
        socket.data.exp = exp;
        next();
      },
      (error: Error) => next(error),
    );
  });
  // Joined before the client hears it is connected, so no reply published after that is missed.
  nsp.on('connection', (socket) => {
    socket.join(rooms.visitor(socket.data.visitor.customerId));
    disconnectAtExpiry(socket, socket.data.exp);
    attachVisitorSignals(io, socket, deps, closing);
  });
  return nsp;
}
