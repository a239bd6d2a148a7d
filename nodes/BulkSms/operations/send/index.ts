export { sendDescription } from './description';
export { executeSend } from './execute';
export { RecordTurns } from './record';
