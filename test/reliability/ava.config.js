// `npm run test:reliability` (test/run.ts prepares the databases, as for `npm test`). One file
// at a time: they kill processes and cut connections, and run against a loaded machine.
export default {
  extensions: ['ts'],
  files: ['test/reliability/**/*.rel.ts'],
  timeout: '3m',
  concurrency: 1,
  workerThreads: false,
};
