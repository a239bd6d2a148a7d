/** Waiting in the e2e suites, where the server under test runs in other processes. */
export { sleep, waitUntil } from '../scripts/n8n/processes';
