export { sendDescription } from './description';
export { executeSend } from './execute';
