/**
 * memberlist's stream framing: one message a connection, whose end a measurer finds; fdkit's frames after
 * the 0xFD mark; replies read until the other side closes. The measurer here is a toy with a rule written
 * by hand: a message is as long as its first byte says, and a first byte of 0 makes no message.
 */
import { describe, expect, it } from 'vitest';
import {
  FDKIT_STREAM_MARK,
  type MessageMeasurer,
  memberlistFraming,
} from '../../../src/wire/memberlist/stream-framing.js';

function toyMeasurer(): MessageMeasurer {
  let first: number | undefined;
  let bytes = 0;
  return {
    push(chunk) {
      first ??= chunk[0];
      bytes += chunk.length;
      if (first === 0) return 'invalid';
      return first !== undefined && bytes >= first ? first : 'more';
    },
  };
}

const framing = memberlistFraming(toyMeasurer, 1000);
const lists = (frames: Uint8Array[]): number[][] => frames.map((f) => [...f]);

describe('memberlistFraming: the reader', () => {
  it('hands on one whole message, found in one chunk, and nothing that follows it', () => {
    const reader = framing.reader(100);
    expect(reader.atBoundary).toBe(true);
    const r = reader.push(Uint8Array.of(3, 10, 11, 99, 98));
    expect(r.tooLarge).toBe(false);
    expect(lists(r.frames)).toEqual([[3, 10, 11]]);
    expect(reader.atBoundary).toBe(true);
    expect(reader.pendingBytes).toBe(0);
    expect(lists(reader.push(Uint8Array.of(2, 1)).frames)).toEqual([]);
  });

  it('waits across chunks, reporting what is pending, until the message is complete', () => {
    const reader = framing.reader(100);
    expect(lists(reader.push(Uint8Array.of(5, 1)).frames)).toEqual([]);
    expect(reader.atBoundary).toBe(false);
    expect(reader.pendingBytes).toBe(2);
    expect(lists(reader.push(new Uint8Array(0)).frames)).toEqual([]);
    expect(lists(reader.push(Uint8Array.of(2)).frames)).toEqual([]);
    expect(reader.pendingBytes).toBe(3);
    expect(lists(reader.push(Uint8Array.of(3, 4, 77)).frames)).toEqual([[5, 1, 2, 3, 4]]);
    expect(reader.atBoundary).toBe(true);
  });

  it('hands on an invalid message whole, for the decoder to count', () => {
    const reader = framing.reader(100);
    expect(lists(reader.push(Uint8Array.of(0, 1, 2)).frames)).toEqual([[0, 1, 2]]);
    expect(lists(reader.push(Uint8Array.of(3, 1, 2)).frames)).toEqual([]);
  });

  it('gives up once an incomplete message passes the bound, and reads nothing more', () => {
    const reader = framing.reader(4);
    expect(reader.push(Uint8Array.of(200, 1, 2, 3)).tooLarge).toBe(false);
    expect(reader.push(Uint8Array.of(4)).tooLarge).toBe(true);
    expect(reader.push(Uint8Array.of(5)).frames).toEqual([]);
    expect(reader.pendingBytes).toBe(0);
  });

  it('reads fdkit’s length-prefixed frames after the mark byte, several on one connection', () => {
    expect(FDKIT_STREAM_MARK).toBe(0xfd);
    const reader = framing.reader(100);
    const r = reader.push(Uint8Array.of(0xfd, 0, 0, 0, 2, 7, 8, 0, 0, 0, 1));
    expect(lists(r.frames)).toEqual([[7, 8]]);
    expect(reader.atBoundary).toBe(false);
    expect(reader.pendingBytes).toBe(4);
    expect(lists(reader.push(Uint8Array.of(9)).frames)).toEqual([[9]]);
    expect(reader.atBoundary).toBe(true);
    expect(reader.push(Uint8Array.of(0, 0, 0, 101)).tooLarge).toBe(true);
  });

  it('treats 0xFD later in a message as an ordinary byte', () => {
    const reader = framing.reader(100);
    expect(lists(reader.push(Uint8Array.of(3, 0xfd, 0xfd)).frames)).toEqual([[3, 0xfd, 0xfd]]);
  });
});

describe('memberlistFraming: the rest', () => {
  it('sends a message and a reply as they are, and asks for a watch with the mark and an empty frame', () => {
    const payload = Uint8Array.of(1, 2, 3);
    expect(framing.wrap(payload)).toBe(payload);
    expect(framing.wrapReply(payload)).toBe(payload);
    expect([...framing.watchRequest]).toEqual([0xfd, 0, 0, 0, 0]);
    expect(framing.answerAtOnce).toBe(true);
    expect(framing.replyBytesMax).toBe(1000);
  });

  it('collects a reply until the close, joined in order', () => {
    const replies = framing.replies(10);
    replies.push(Uint8Array.of(1, 2));
    replies.push(Uint8Array.of(3));
    replies.push(Uint8Array.of(4, 5, 6));
    expect([...replies.result()!]).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('has no reply for nothing written, nor for more than the bound', () => {
    expect(framing.replies(10).result()).toBeUndefined();
    const replies = framing.replies(4);
    replies.push(Uint8Array.of(1, 2, 3));
    replies.push(Uint8Array.of(4, 5));
    replies.push(Uint8Array.of(6));
    expect(replies.result()).toBeUndefined();
  });
});
