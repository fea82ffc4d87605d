/**
 * Node's global `Buffer` in the page's bundle (bin/build-ui.js injects this module wherever the
 * simulator names `Buffer`: the CNI plugins read and write their stdin, stdout and configurations
 * as bytes): the `buffer` package, the browser's implementation of the same API.
 */
export { Buffer } from 'buffer';
