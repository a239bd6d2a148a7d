export { sendDescription } from './description';
export { executeSend } from './execute';
export { SendProcess } from './record';
