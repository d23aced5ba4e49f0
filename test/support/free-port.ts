/** The port picker lives beside the shared server starter, in the kit plugin authors get. */
export { freePort, listenerPorts } from '../../src/testing/free-port.js';
