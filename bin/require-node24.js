// Stops the process with one sentence on Node.js older than 24. Plain JavaScript, loaded
// before any .ts file (bin/parley.js imports it; other npm scripts use `node --import`):
// older Node versions cannot load TypeScript and would fail with ERR_UNKNOWN_FILE_EXTENSION.
const [major] = process.versions.node.split('.').map(Number);
if (major < 24) {
  console.error(`parley: Node.js 24 or newer is required, this is ${process.version}: install Node.js 24 LTS (in a checkout: source scripts/use-node24.sh).`);
  process.exit(1);
}
