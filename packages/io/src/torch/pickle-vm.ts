// The pickle machine for a data.pkl: the opcodes of protocols 2 to 5 that torch.save emits (and
// the few others CPython's pickler writes for plain containers), with nothing ever imported or
// called. It loops without recursion; every opcode costs work and memory bounded by the bytes it
// consumes (a memo index is never an array size: pickle-memo.ts), so a run is linear in the input.
// Its memory per object is kept small, as a hostile pickle makes one object a byte or two: one
// stack for all MARKs (a MARK is an index into it, and a MARK's items are cut out at their exact
// length), and lists that keep no items (one shared value: no rebuild takes a list, and a state
// dict counts a list as one entry).

import { PickleCursor } from './pickle-cursor.js';
import { pickleError } from './pickle-error.js';
import { globalValue, newObjectValue, reduceValue } from './pickle-globals.js';
import { PickleMemo } from './pickle-memo.js';
import { OPCODE_NAMES } from './pickle-opcodes.js';
import {
  type DictValue,
  dictSet,
  isKind,
  kindOf,
  type ListValue,
  type PickleValue,
  type TupleValue,
} from './pickle-values.js';
import { storageOf } from './tensor-rebuild.js';

const HIGHEST_PROTOCOL = 5;
/**
 * Objects (containers, records, dict entries, open MARKs, memo entries) a pickle may make, and
 * values its stack may hold at once. An object costs up to about 220 bytes of heap (a dict nested
 * in a dict, for 8 bytes of input), so this bounds the heap to about 1 GB where the input's length
 * alone would not. torch.save makes 18 objects a tensor: this admits a state dict of 230,000.
 */
const MAX_PICKLE_OBJECTS = 2 ** 22;
const EMPTY_TUPLE: TupleValue = { kind: 'tuple', items: [] };
const LIST: ListValue = { kind: 'list' };

class PickleMachine {
  /** The values of every open MARK's frame, outermost first. */
  private readonly stack: PickleValue[] = [];
  /** Where each open MARK's frame starts in the stack. */
  private readonly marks: number[] = [];
  private readonly memo = new PickleMemo();
  /** Offset and name of the opcode being run, for messages. */
  private at = 0;
  private op = '';

  constructor(
    private readonly cursor: PickleCursor,
    private readonly maxObjects: number,
  ) {}

  /** Objects made so far, against maxObjects. */
  private made = 0;

  private fail(message: string): never {
    throw pickleError(`${this.op} at offset ${this.at}: ${message}`);
  }

  private count(): void {
    this.made += 1;
    if (this.made > this.maxObjects) this.fail(`makes more than ${this.maxObjects} objects`);
  }

  /** Pushes a value this opcode made (BINGET and DUP push values already counted). */
  private push(value: PickleValue): void {
    if (value !== null && typeof value === 'object') this.count();
    this.hold(value);
  }

  /** Pushes any value: the stack holds at most maxObjects (a value a byte, else). */
  private hold(value: PickleValue): void {
    if (this.stack.length >= this.maxObjects) {
      this.fail(`holds more than ${this.maxObjects} values at once`);
    }
    this.stack.push(value);
  }

  /** Values in the innermost MARK's frame (the whole stack when no MARK is open). */
  private get held(): number {
    return this.stack.length - (this.marks.at(-1) ?? 0);
  }

  private pop(): PickleValue {
    if (this.held === 0) this.fail('the stack is empty');
    return this.stack.pop() as PickleValue;
  }

  private top(): PickleValue {
    if (this.held === 0) this.fail('the stack is empty');
    return this.stack[this.stack.length - 1] as PickleValue;
  }

  /** Closes the innermost MARK: its frame's values, in an array of their number. */
  private popMark(): PickleValue[] {
    const start = this.marks.pop();
    if (start === undefined) this.fail('no MARK is open');
    return this.stack.splice(start);
  }

  private popMany(n: number): PickleValue[] {
    if (this.held < n) this.fail(`needs ${n} items, the stack holds ${this.held}`);
    return this.stack.splice(this.stack.length - n, n);
  }

  private target<K extends 'list' | 'dict' | 'set'>(kind: K): Extract<PickleValue, { kind: K }> {
    const value = this.top();
    if (!isKind(value, kind)) {
      this.fail(`the target is ${kindOf(value)}, not a ${kind}`);
    }
    return value as Extract<PickleValue, { kind: K }>;
  }

  private setItems(dict: DictValue, items: PickleValue[]): void {
    if (items.length % 2 !== 0) this.fail(`${items.length} items do not make key-value pairs`);
    for (let i = 0; i < items.length; i += 2) {
      const key = items[i] as PickleValue;
      // As Python, which refuses them: all lists are one value here, and would be one key.
      if (isKind(key, 'list') || isKind(key, 'dict') || isKind(key, 'set')) {
        this.fail(`a ${key.kind} is not a valid dict key (unhashable)`);
      }
      if (dictSet(dict, key, items[i + 1] as PickleValue)) this.count();
    }
  }

  private memoPut(index: number): void {
    if (this.memo.set(index, this.top())) this.count();
  }

  private memoGet(index: number): void {
    if (!this.memo.has(index)) this.fail(`memo ${index} was never stored`);
    this.hold(this.memo.get(index));
  }

  private global(module: string, name: string): void {
    this.push(globalValue(module, name, this.at));
  }

  private text(value: PickleValue): string {
    if (typeof value !== 'string') this.fail(`expects str, got ${kindOf(value)}`);
    return value;
  }

  /** Runs to STOP; returns the one value left. */
  run(): PickleValue {
    const c = this.cursor;
    for (;;) {
      this.at = c.pos;
      if (c.left === 0) throw pickleError(`ends at offset ${c.pos} without STOP`);
      const code = c.u8();
      this.op = OPCODE_NAMES.get(code) ?? '';
      c.opcode = this.op;
      c.opcodeAt = this.at;
      switch (code) {
        case 0x80: {
          const version = c.u8();
          if (version < 2 || version > HIGHEST_PROTOCOL)
            this.fail(`protocol ${version} is not 2 to 5`);
          break;
        }
        case 0x95: // FRAME: a buffering hint; its length must fit
          if (c.u64() > BigInt(c.left)) this.fail('the frame runs past the end');
          break;
        case 0x2e: {
          // STOP
          if (this.marks.length !== 0 || this.stack.length !== 1) {
            this.fail(
              `leaves ${this.held} values and ${this.marks.length} open MARKs, not 1 value`,
            );
          }
          if (c.left !== 0) this.fail(`${c.left} bytes follow STOP`);
          return this.stack[0] as PickleValue;
        }
        case 0x28: // MARK
          this.count();
          this.marks.push(this.stack.length);
          break;
        case 0x30: // POP
          if (this.held === 0) this.popMark();
          else this.stack.pop();
          break;
        case 0x31: // POP_MARK
          this.popMark();
          break;
        case 0x32: // DUP
          this.hold(this.top());
          break;
        case 0x4e: // NONE
          this.push(null);
          break;
        case 0x88: // NEWTRUE
          this.push(true);
          break;
        case 0x89: // NEWFALSE
          this.push(false);
          break;
        case 0x4a: // BININT
          this.push(c.i32());
          break;
        case 0x4b: // BININT1
          this.push(c.u8());
          break;
        case 0x4d: // BININT2
          this.push(c.u16());
          break;
        case 0x8a: // LONG1
          this.push(c.long(c.u8()));
          break;
        case 0x8b: // LONG4
          this.push(c.long(c.length32()));
          break;
        case 0x47: // BINFLOAT
          this.push({ kind: 'float', value: c.f64be() });
          break;
        case 0x58: // BINUNICODE
          this.push(c.utf8(c.u32()));
          break;
        case 0x8c: // SHORT_BINUNICODE
          this.push(c.utf8(c.u8()));
          break;
        case 0x8d: // BINUNICODE8
          this.push(c.utf8(c.u64()));
          break;
        case 0x54: // BINSTRING: a Python 2 str, which torch.load decodes as UTF-8
          this.push(c.utf8(c.length32()));
          break;
        case 0x55: // SHORT_BINSTRING
          this.push(c.utf8(c.u8()));
          break;
        case 0x42: // BINBYTES
          c.take(c.u32());
          this.push({ kind: 'bytes' });
          break;
        case 0x43: // SHORT_BINBYTES
          c.take(c.u8());
          this.push({ kind: 'bytes' });
          break;
        case 0x8e: // BINBYTES8
        case 0x96: // BYTEARRAY8
          c.take(c.u64());
          this.push({ kind: 'bytes' });
          break;
        case 0x5d: // EMPTY_LIST
          this.push(LIST);
          break;
        case 0x6c: // LIST
          this.popMark();
          this.push(LIST);
          break;
        case 0x61: // APPEND
          this.pop();
          this.target('list');
          break;
        case 0x65: // APPENDS
          this.popMark();
          this.target('list');
          break;
        case 0x29: // EMPTY_TUPLE: immutable, so one is shared
          this.hold(EMPTY_TUPLE);
          break;
        case 0x74: // TUPLE
          this.push({ kind: 'tuple', items: this.popMark() });
          break;
        case 0x85: // TUPLE1
        case 0x86: // TUPLE2
        case 0x87: // TUPLE3
          this.push({ kind: 'tuple', items: this.popMany(code - 0x84) });
          break;
        case 0x7d: // EMPTY_DICT
          this.push({ kind: 'dict', entries: null });
          break;
        case 0x64: {
          // DICT
          const dict: DictValue = { kind: 'dict', entries: null };
          this.setItems(dict, this.popMark());
          this.push(dict);
          break;
        }
        case 0x73: {
          // SETITEM
          const pair = this.popMany(2);
          this.setItems(this.target('dict'), pair);
          break;
        }
        case 0x75: {
          // SETITEMS
          const items = this.popMark();
          this.setItems(this.target('dict'), items);
          break;
        }
        case 0x8f: // EMPTY_SET
          this.push({ kind: 'set' });
          break;
        case 0x90: // ADDITEMS
          this.popMark();
          this.target('set');
          break;
        case 0x91: // FROZENSET
          this.popMark();
          this.push({ kind: 'frozenset' });
          break;
        case 0x68: // BINGET
          this.memoGet(c.u8());
          break;
        case 0x6a: // LONG_BINGET
          this.memoGet(c.u32());
          break;
        case 0x71: // BINPUT
          this.memoPut(c.u8());
          break;
        case 0x72: // LONG_BINPUT
          this.memoPut(c.u32());
          break;
        case 0x94: // MEMOIZE
          this.memoPut(this.memo.size);
          break;
        case 0x63: {
          // GLOBAL
          const module = c.line();
          this.global(module, c.line());
          break;
        }
        case 0x93: {
          // STACK_GLOBAL
          const name = this.text(this.pop());
          this.global(this.text(this.pop()), name);
          break;
        }
        case 0x52: {
          // REDUCE
          const args = this.pop();
          this.push(reduceValue(this.pop(), args));
          break;
        }
        case 0x81: {
          // NEWOBJ
          const args = this.pop();
          this.push(newObjectValue(this.pop(), args));
          break;
        }
        case 0x92: {
          // NEWOBJ_EX
          const kwargs = this.pop();
          const args = this.pop();
          const cls = this.pop();
          if (!isKind(kwargs, 'dict') || kwargs.entries !== null) {
            this.fail('keyword arguments are not supported');
          }
          this.push(newObjectValue(cls, args));
          break;
        }
        case 0x62: {
          // BUILD: a dict's state is its attributes (an OrderedDict's _metadata), not entries
          const state = this.pop();
          this.target('dict');
          if (state !== null && !isKind(state, 'dict')) {
            this.fail(`the state is ${kindOf(state)}, not a dict`);
          }
          break;
        }
        case 0x51: // BINPERSID
          this.push(storageOf(this.pop()));
          break;
        default:
          throw pickleError(
            this.op === ''
              ? `unknown opcode 0x${code.toString(16).padStart(2, '0')} at offset ${this.at}`
              : `opcode ${this.op} at offset ${this.at} is not supported (torch.save never writes it)`,
          );
      }
    }
  }
}

/** Runs a pickle to its STOP and returns its value, refusing anything outside the allow-list. */
export function runPickle(bytes: Uint8Array, maxObjects = MAX_PICKLE_OBJECTS): PickleValue {
  return new PickleMachine(new PickleCursor(bytes), maxObjects).run();
}
