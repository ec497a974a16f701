#!/usr/bin/env node
// The entry point of npm scripts, the Procfile, the image and the `parley` bin: checks the
// Node.js version (a static import runs first), then loads the TypeScript command.
import './require-node24.js';
// Serves the .ts files with their types stripped ahead (npm run strip), when they are.
import './stripped-sources.js';

await import('./parley.ts');
