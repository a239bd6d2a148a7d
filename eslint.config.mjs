import { config } from '@n8n/node-cli/eslint';
import { globalIgnores } from 'eslint/config';

// The official community-node rules apply to what we publish; tests, the sandbox and the
// scripts that drive n8n are never shipped and run under plain Node.
export default [globalIgnores(['test', 'sandbox', 'scripts', 'e2e', 'benchmarks', '*.js', '*.mjs']), ...config];
