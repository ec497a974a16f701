/**
 * A tiny IMAP4rev1 server on 127.0.0.1, enough for imapflow to log in, open INBOX and fetch by
 * UID: CAPABILITY, LOGIN, LIST/LSUB, SELECT/EXAMINE (EXISTS, UIDVALIDITY, UIDNEXT), UID FETCH
 * with UID and BODY[]/BODY.PEEK[], NOOP, LOGOUT. No TLS, no literals from the client.
 *
 *   const imap = await startFakeImap({ user: 'support@acme.test', password: 'pw' });
 *   imap.deliver(rawMessage); // gets the next UID
 *   imap.resetUidValidity(); // a new UIDVALIDITY, UIDs renumbered from 1
 */
import { createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export type FakeImap = {
  port: number;
  uidValidity: number;
  messages: { uid: number; source: Buffer; seen: boolean }[];
  /** Every command received (the password of LOGIN masked). */
  commands: string[];
  deliver: (source: Buffer | string) => number;
  resetUidValidity: () => void;
  close: () => Promise<void>;
};

export async function startFakeImap(options: { user: string; password: string; uidValidity?: number }): Promise<FakeImap> {
  const state = { uidValidity: options.uidValidity ?? 1_700_000_000, uidNext: 1 };
  const messages: FakeImap['messages'] = [];
  const commands: string[] = [];
  const sockets = new Set<Socket>();

  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    let authenticated = false;
    let selected = false;
    let buffer = '';
    const send = (line: string | Buffer) => socket.write(line);
    send('* OK [CAPABILITY IMAP4rev1] Fake IMAP ready\r\n');
    socket.on('data', (data: Buffer) => {
      buffer += data.toString('latin1');
      let end: number;
      while ((end = buffer.indexOf('\r\n')) >= 0) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        handle(line);
      }
    });

    function handle(line: string) {
      const match = /^(\S+) (\S+)(?: (.*))?$/.exec(line);
      if (!match) return send('* BAD Invalid command\r\n');
      const [, tag, rawCommand, args = ''] = match;
      const command = rawCommand.toUpperCase();
      commands.push(command === 'LOGIN' ? `LOGIN ${quotedStrings(args)[0] ?? ''} ****` : `${command} ${args}`.trim());
      switch (command) {
        case 'CAPABILITY':
          return send(`* CAPABILITY IMAP4rev1\r\n${tag} OK CAPABILITY completed\r\n`);
        case 'NOOP':
          return send(`${tag} OK NOOP completed\r\n`);
        case 'LOGOUT':
          send(`* BYE Logging out\r\n${tag} OK LOGOUT completed\r\n`);
          return socket.end();
        case 'LOGIN': {
          const [user, password] = quotedStrings(args);
          if (user !== options.user || password !== options.password) return send(`${tag} NO [AUTHENTICATIONFAILED] Invalid credentials (Failure)\r\n`);
          authenticated = true;
          return send(`${tag} OK [CAPABILITY IMAP4rev1] Logged in\r\n`);
        }
      }
      if (!authenticated) return send(`${tag} NO Not authenticated\r\n`);
      switch (command) {
        case 'LIST':
        case 'LSUB':
          if (/"INBOX"|\*|%/.test(args)) send(`* ${command} (\\HasNoChildren) "/" "INBOX"\r\n`);
          else send(`* ${command} (\\Noselect) "/" ""\r\n`);
          return send(`${tag} OK ${command} completed\r\n`);
        case 'SELECT':
        case 'EXAMINE': {
          if (!/^"?INBOX"?$/i.test(args.trim())) return send(`${tag} NO Mailbox does not exist\r\n`);
          selected = true;
          send(`* ${messages.length} EXISTS\r\n* 0 RECENT\r\n* FLAGS (\\Answered \\Flagged \\Deleted \\Seen \\Draft)\r\n`);
          send(`* OK [UIDVALIDITY ${state.uidValidity}] UIDs valid\r\n* OK [UIDNEXT ${state.uidNext}] Predicted next UID\r\n`);
          return send(`${tag} OK [${command === 'EXAMINE' ? 'READ-ONLY' : 'READ-WRITE'}] ${command} completed\r\n`);
        }
        case 'UID': {
          if (!selected) return send(`${tag} BAD No mailbox selected\r\n`);
          const fetch = /^FETCH (\S+) \(?(.*?)\)?$/i.exec(args);
          if (!fetch) return send(`${tag} BAD Only UID FETCH is supported\r\n`);
          const uids = matchingUids(fetch[1]);
          const items = fetch[2].toUpperCase();
          const withBody = items.includes('BODY[]') || items.includes('BODY.PEEK[]');
          for (const uid of uids) {
            const index = messages.findIndex((m) => m.uid === uid);
            const message = messages[index];
            if (!items.includes('BODY.PEEK[]') && withBody) message.seen = true;
            if (withBody) {
              send(`* ${index + 1} FETCH (UID ${uid} BODY[] {${message.source.length}}\r\n`);
              send(message.source);
              send(')\r\n');
            } else {
              send(`* ${index + 1} FETCH (UID ${uid})\r\n`);
            }
          }
          return send(`${tag} OK UID FETCH completed\r\n`);
        }
        default:
          return send(`${tag} BAD Command not supported by the fake\r\n`);
      }
    }
  });

  /** UIDs of existing messages in an IMAP sequence set; `*` is the highest UID (so `n:*` always matches it). */
  function matchingUids(set: string): number[] {
    if (messages.length === 0) return [];
    const max = messages[messages.length - 1].uid;
    const wanted = new Set<number>();
    for (const part of set.split(',')) {
      const [a, b = a] = part.split(':').map((value) => (value === '*' ? max : Number(value)));
      const [low, high] = a <= b ? [a, b] : [b, a];
      for (const message of messages) if (message.uid >= low && message.uid <= high) wanted.add(message.uid);
    }
    return [...wanted].sort((x, y) => x - y);
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const fake: FakeImap = {
    port: (server.address() as AddressInfo).port,
    get uidValidity() {
      return state.uidValidity;
    },
    messages,
    commands,
    deliver(source) {
      const uid = state.uidNext++;
      messages.push({ uid, source: Buffer.isBuffer(source) ? source : Buffer.from(source), seen: false });
      return uid;
    },
    resetUidValidity() {
      state.uidValidity += 1;
      state.uidNext = 1;
      for (const message of messages) message.uid = state.uidNext++;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
  return fake;
}

/** The quoted-string arguments of a command line ("a" "b\"c"). */
function quotedStrings(args: string): string[] {
  return [...args.matchAll(/"((?:[^"\\]|\\.)*)"|(\S+)/g)].map((m) => (m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : m[2]));
}
