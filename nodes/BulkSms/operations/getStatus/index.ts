export { getStatusDescription } from './description';
export { executeGetStatus } from './execute';
