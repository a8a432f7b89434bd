import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { isLent, lendToResponse, lendUntil } from '../../../src/core/cache/lent-bodies.js';

// A kept body is rewritten in place only while no response and no deflate still reads it.

const response = () => new EventEmitter() as unknown as ServerResponse;

describe('lent bodies', () => {
  it('are lent until every response they were handed to closes', () => {
    const body = Buffer.from('{"count":1}');
    const [one, two] = [response(), response()];
    expect(isLent(body)).toBe(false);
    lendToResponse(body, one);
    lendToResponse(body, two);
    one.emit('close');
    expect(isLent(body)).toBe(true);
    two.emit('close');
    expect(isLent(body)).toBe(false);
    // A second close event is not a second return.
    lendToResponse(body, one);
    two.emit('close');
    expect(isLent(body)).toBe(true);
  });

  it('are lent until the work reading them settles, failed or not', async () => {
    const body = Buffer.from('{"count":2}');
    let finish!: () => void;
    const work = lendUntil(body, new Promise<void>((resolve) => (finish = resolve)));
    expect(isLent(body)).toBe(true);
    finish();
    await work;
    expect(isLent(body)).toBe(false);
    await expect(lendUntil(body, Promise.reject(new Error('no room')))).rejects.toThrow('no room');
    expect(isLent(body)).toBe(false);
  });

  it('are told apart by identity: another buffer with the same bytes is not lent', () => {
    const body = Buffer.from('same');
    lendToResponse(body, response());
    expect(isLent(Buffer.from('same'))).toBe(false);
  });
});
