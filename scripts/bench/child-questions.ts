import type { ChildProcess } from 'node:child_process';

// The bench's server children answer numbered questions over their IPC channel; numbered because
// several askers (the mix's writer, a row's measurements) may have questions out at once.

/** Asks `child` one question (numbered from `counter`) and resolves with its numeric answer. */
export function askChild(
  child: ChildProcess,
  counter: { asked: number },
  question: string,
  argument?: string,
): Promise<number> {
  const id = ++counter.asked;
  return new Promise((resolve) => {
    const listen = (message: [number, number]) => {
      if (message[0] !== id) return;
      child.off('message', listen);
      resolve(message[1]);
    };
    child.on('message', listen);
    child.send([id, question, argument]);
  });
}
