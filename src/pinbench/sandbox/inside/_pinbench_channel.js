'use strict';
// The channel between trusted grading's two Node processes: the grader (the test) and the
// program's process. Runs on Node 12 and later (no syntax newer than ES2019).
//
// Values cross as inert data: primitives, arrays, plain objects, Date, RegExp, Map, Set,
// Buffer and typed arrays, errors (rebuilt as the grader's own Error classes). Everything else
// (functions, class instances, promises) stays in the process that made it and crosses as a
// handle: the other side gets a proxy whose every operation is a request answered with data.
// The decoder builds nothing but that data and those proxies, and refuses anything malformed
// or oversized; no code of the sending side runs in the receiving one.
//
// Transport: frames (4-byte length, JSON) on a blocking socket, read and written synchronously;
// a one-byte doorbell per frame on a second socket, watched by the event loop, wakes a side
// that is idle (awaiting a promise) so it reads the frame that is waiting for it.
const fs = require('fs');
const net = require('net');

const MAX_FRAME = 16 << 20;
const MAX_DEPTH = 100;
const MAX_NODES = 1 << 20;
const HANDLE = typeof Symbol === 'function' ? Symbol('pinbench.handle') : '__pinbench_handle__';
const WELL_KNOWN = ['iterator', 'asyncIterator', 'toPrimitive', 'toStringTag', 'hasInstance'];
const ERRORS = {
  Error: Error, TypeError: TypeError, RangeError: RangeError, SyntaxError: SyntaxError,
  ReferenceError: ReferenceError, EvalError: EvalError, URIError: URIError,
};
const TYPED = [
  'Int8Array', 'Uint8Array', 'Uint8ClampedArray', 'Int16Array', 'Uint16Array', 'Int32Array',
  'Uint32Array', 'Float32Array', 'Float64Array', 'BigInt64Array', 'BigUint64Array',
];

class ChannelError extends Error {}

function isPlain(value) {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

class Channel {
  // `serve(op, args)` answers the other side's requests (its value is encoded back).
  constructor(dataFd, bellFd, serve) {
    this.data = dataFd;
    this.serve = serve;
    this.handles = new Map(); // id -> our value the other side holds
    this.ids = new Map(); // our value -> id
    this.nextHandle = 1;
    this.nextRequest = 1;
    this.pending = new Map(); // promise id (theirs) -> {resolve, reject}
    this.skipBells = 0;
    this.broken = null;
    this.closed = false;
    this.onBroken = null;
    this.bell = new net.Socket({ fd: bellFd, readable: true, writable: true });
    this.bell.on('data', (chunk) => this._rung(chunk.length));
    this.bell.on('error', () => this._close());
    this.bell.on('close', () => this._close());
  }

  unref() {
    this.bell.unref();
  }

  _close() {
    this.closed = true;
    this.pending.forEach((p) => p.reject(new Error("the program's process ended")));
    this.pending.clear();
  }

  _fail(reason) {
    if (this.broken === null) this.broken = String(reason).slice(0, 300);
    if (this.onBroken) this.onBroken(this.broken);
    throw new ChannelError(this.broken);
  }

  // ---- transport ----
  _write(frame) {
    const body = Buffer.from(JSON.stringify(frame), 'utf8');
    const head = Buffer.alloc(4);
    head.writeUInt32BE(body.length, 0);
    const all = Buffer.concat([head, body]);
    let off = 0;
    while (off < all.length) {
      try {
        off += fs.writeSync(this.data, all, off, all.length - off);
      } catch (err) {
        if (err.code === 'EAGAIN' || err.code === 'EINTR') continue;
        if (err.code !== 'EPIPE' && err.code !== 'ECONNRESET') throw err;
        this._close();
        throw new Error("the program's process ended");
      }
    }
    try {
      this.bell.write(Buffer.from([1]));
    } catch (err) {
      // the other side is gone: its next read of ours fails
    }
  }

  _readExactly(n) {
    const buf = Buffer.alloc(n);
    let off = 0;
    while (off < n) {
      let got;
      try {
        got = fs.readSync(this.data, buf, off, n - off, null);
      } catch (err) {
        if (err.code === 'EAGAIN' || err.code === 'EINTR') continue;
        if (err.code !== 'ECONNRESET') throw err;
        got = 0;
      }
      if (got === 0) {
        this._close();
        throw new Error("the program's process ended");
      }
      off += got;
    }
    return buf;
  }

  _readFrame() {
    const size = this._readExactly(4).readUInt32BE(0);
    if (size > MAX_FRAME) this._fail('a frame of ' + size + ' bytes');
    const text = this._readExactly(size).toString('utf8');
    let frame;
    try {
      frame = JSON.parse(text);
    } catch (err) {
      this._fail('a frame that is not JSON');
    }
    if (!frame || typeof frame !== 'object' || Array.isArray(frame)) this._fail('a frame that is not an object');
    return frame;
  }

  _rung(count) {
    for (let i = 0; i < count; i++) {
      if (this.skipBells > 0) {
        this.skipBells--;
        continue;
      }
      let frame;
      try {
        frame = this._readFrame();
        this._dispatch(frame, null);
      } catch (err) {
        if (!(err instanceof ChannelError) && !this.closed) this.broken = this.broken || String(err);
      }
    }
  }

  // A frame read on the synchronous path: its doorbell is still to come, and skipped.
  _readSyncFrame() {
    this.skipBells++;
    return this._readFrame();
  }

  _dispatch(frame, waiting) {
    if (frame.t === 'q') {
      this._answer(frame);
      return null;
    }
    if (frame.t === 's') {
      const p = this.pending.get(frame.p);
      if (!p) this._fail('a settlement of an unknown promise');
      this.pending.delete(frame.p);
      let value;
      try {
        value = this.decode(frame.v);
      } catch (err) {
        p.reject(err);
        throw err;
      }
      if (frame.ok === true) p.resolve(value); else p.reject(value);
      return null;
    }
    if (frame.t === 'r') {
      if (waiting === null || frame.id !== waiting) this._fail('an answer to no request');
      return frame;
    }
    this._fail('a frame of unknown type ' + JSON.stringify(frame.t));
    return null;
  }

  _answer(frame) {
    let reply;
    try {
      const value = this.serve(frame.op, frame, this);
      reply = { t: 'r', id: frame.id, ok: true, v: this.encode(value) };
    } catch (err) {
      if (err instanceof ChannelError) throw err;
      reply = { t: 'r', id: frame.id, ok: false, v: this.encode(err) };
    }
    this._write(reply);
  }

  // A request, answered synchronously; the other side's requests made meanwhile are served.
  request(op, fields) {
    if (this.broken !== null) throw new ChannelError(this.broken);
    if (this.closed) throw new Error("the program's process ended");
    const id = this.nextRequest++;
    this._write(Object.assign({ t: 'q', id: id, op: op }, fields));
    for (;;) {
      const frame = this._readSyncFrame();
      const answer = this._dispatch(frame, id);
      if (answer !== null) {
        const value = this.decode(answer.v);
        if (answer.ok === true) return value;
        throw value;
      }
    }
  }

  send(frame) {
    this._write(frame);
  }

  // ---- values ----
  handleOf(value) {
    let id = this.ids.get(value);
    if (id === undefined) {
      id = this.nextHandle++;
      this.ids.set(value, id);
      this.handles.set(id, value);
    }
    return id;
  }

  local(id) {
    if (!this.handles.has(id)) this._fail('an unknown handle ' + id);
    return this.handles.get(id);
  }

  encode(value) {
    const nodes = { count: 0 };
    return this._enc(value, 0, new Set(), nodes);
  }

  _enc(value, depth, path, nodes) {
    if (++nodes.count > MAX_NODES) throw new Error('a value too large to cross');
    const type = typeof value;
    if (value === null || type === 'boolean' || type === 'string') return value;
    if (type === 'number') {
      if (Number.isFinite(value) && !Object.is(value, -0)) return value;
      return { $: 'n', v: Object.is(value, -0) ? '-0' : String(value) };
    }
    if (type === 'undefined') return { $: 'u' };
    if (type === 'bigint') return { $: 'b', v: value.toString() };
    if (type === 'symbol') {
      const name = WELL_KNOWN.filter((k) => Symbol[k] === value)[0];
      return name ? { $: 'y', v: name } : { $: 'u' };
    }
    if (type === 'function') {
      const theirs = value[HANDLE];
      if (theirs !== undefined && theirs.channel === this) return { $: 'H', id: theirs.id };
      return { $: 'h', k: 'f', id: this.handleOf(value) };
    }
    const theirs = value[HANDLE];
    if (theirs !== undefined && theirs.channel === this) return { $: 'H', id: theirs.id };
    if (depth > MAX_DEPTH || path.has(value)) return { $: 'h', k: 'o', id: this.handleOf(value) };
    if (value instanceof Promise) {
      const id = this.handleOf(value);
      value.then(
        (v) => this._settle(id, true, v),
        (e) => this._settle(id, false, e)
      );
      return { $: 'p', id: id };
    }
    path.add(value);
    try {
      const down = (v) => this._enc(v, depth + 1, path, nodes);
      if (Array.isArray(value) && Object.getPrototypeOf(value) === Array.prototype) {
        const items = [];
        for (let i = 0; i < value.length; i++) items.push(down(value[i]));
        return { $: 'a', v: items };
      }
      if (value instanceof Date) return { $: 'd', v: value.getTime() };
      if (value instanceof RegExp) return { $: 'r', s: value.source, f: value.flags };
      if (Buffer.isBuffer(value)) return { $: 'B', v: value.toString('base64') };
      if (ArrayBuffer.isView(value) && TYPED.indexOf(value.constructor.name) >= 0) {
        const bytes = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
        return { $: 't', k: value.constructor.name, v: bytes.toString('base64') };
      }
      if (value instanceof Map && Object.getPrototypeOf(value) === Map.prototype) {
        const entries = [];
        value.forEach((v, k) => entries.push([down(k), down(v)]));
        return { $: 'm', v: entries };
      }
      if (value instanceof Set && Object.getPrototypeOf(value) === Set.prototype) {
        const items = [];
        value.forEach((v) => items.push(down(v)));
        return { $: 's', v: items };
      }
      if (value instanceof Error) {
        const out = { $: 'e', n: String(value.name), m: String(value.message), st: String(value.stack || '') };
        if (value.code !== undefined) out.c = down(value.code);
        return out;
      }
      if (isPlain(value)) {
        const entries = [];
        Object.keys(value).forEach((k) => entries.push([k, down(value[k])]));
        return { $: 'o', v: entries };
      }
      return { $: 'h', k: 'o', id: this.handleOf(value), c: constructorName(value) };
    } finally {
      path.delete(value);
    }
  }

  _settle(id, ok, value) {
    if (this.closed) return;
    let encoded;
    try {
      encoded = this.encode(value);
    } catch (err) {
      ok = false;
      encoded = this.encode(new Error('a settled value that cannot cross: ' + err.message));
    }
    try {
      this._write({ t: 's', p: id, ok: ok, v: encoded });
    } catch (err) {
      // the other side is gone
    }
  }

  decode(data) {
    const nodes = { count: 0 };
    return this._dec(data, 0, nodes);
  }

  _dec(data, depth, nodes) {
    if (++nodes.count > MAX_NODES || depth > MAX_DEPTH + 2) this._fail('a value too large or deep');
    if (data === null || typeof data === 'boolean' || typeof data === 'string') return data;
    if (typeof data === 'number') return data;
    if (typeof data !== 'object' || Array.isArray(data)) this._fail('a value of no known shape');
    const down = (v) => this._dec(v, depth + 1, nodes);
    const list = (v) => {
      if (!Array.isArray(v)) this._fail('a list that is not a list');
      return v;
    };
    const text = (v) => {
      if (typeof v !== 'string') this._fail('a text that is not text');
      return v;
    };
    switch (data.$) {
      case 'u': return undefined;
      case 'n': {
        const known = { NaN: NaN, Infinity: Infinity, '-Infinity': -Infinity, '-0': -0 };
        if (!Object.prototype.hasOwnProperty.call(known, data.v)) this._fail('a number of no known kind');
        return known[data.v];
      }
      case 'b':
        if (typeof BigInt !== 'function' || !/^-?\d{1,10000}$/.test(text(data.v))) this._fail('a bad bigint');
        return BigInt(data.v);
      case 'y':
        if (WELL_KNOWN.indexOf(data.v) < 0) this._fail('an unknown symbol');
        return Symbol[data.v];
      case 'a': return list(data.v).map(down);
      case 'o': {
        const out = {};
        list(data.v).forEach((entry) => {
          if (!Array.isArray(entry) || entry.length !== 2) this._fail('a malformed property');
          Object.defineProperty(out, text(entry[0]), {
            value: down(entry[1]), enumerable: true, writable: true, configurable: true,
          });
        });
        return out;
      }
      case 'd':
        if (typeof data.v !== 'number') this._fail('a bad date');
        return new Date(data.v);
      case 'r':
        try {
          return new RegExp(text(data.s), text(data.f));
        } catch (err) {
          return this._fail('a bad regular expression');
        }
      case 'B': return Buffer.from(text(data.v), 'base64');
      case 't': {
        if (TYPED.indexOf(data.k) < 0 || typeof global[data.k] !== 'function') this._fail('an unknown typed array');
        const bytes = Buffer.from(text(data.v), 'base64');
        const Kind = global[data.k];
        if (bytes.length % Kind.BYTES_PER_ELEMENT) this._fail('a typed array of a broken length');
        const copy = new Uint8Array(bytes).buffer;
        return new Kind(copy);
      }
      case 'm': {
        const out = new Map();
        list(data.v).forEach((entry) => {
          if (!Array.isArray(entry) || entry.length !== 2) this._fail('a malformed map entry');
          out.set(down(entry[0]), down(entry[1]));
        });
        return out;
      }
      case 's': return new Set(list(data.v).map(down));
      case 'e': {
        const Kind = Object.prototype.hasOwnProperty.call(ERRORS, data.n) ? ERRORS[data.n] : Error;
        const err = new Kind(text(data.m));
        if (Kind === Error && data.n !== 'Error') {
          Object.defineProperty(err, 'name', { value: text(data.n), writable: true, configurable: true });
        }
        Object.defineProperty(err, 'stack', { value: text(data.st), writable: true, configurable: true });
        if ('c' in data) err.code = down(data.c);
        return err;
      }
      case 'H': return this.local(data.id);
      case 'h':
        if (typeof data.id !== 'number' || (data.k !== 'f' && data.k !== 'o')) this._fail('a bad handle');
        return this.proxy(data.id, data.k === 'f', typeof data.c === 'string' ? data.c : '');
      case 'p': {
        if (typeof data.id !== 'number') this._fail('a bad promise');
        return new Promise((resolve, reject) => this.pending.set(data.id, { resolve: resolve, reject: reject }));
      }
      default:
        return this._fail('a value tagged ' + JSON.stringify(data.$));
    }
  }

  // The other side's object or function: every operation is a request.
  proxy(id, callable, name) {
    const channel = this;
    const marker = { channel: this, id: id };
    const target = callable ? function () {} : {};
    const key = (k) => {
      if (typeof k === 'string') return k;
      const wk = WELL_KNOWN.filter((w) => Symbol[w] === k)[0];
      return wk ? { $: 'y', v: wk } : undefined;
    };
    return new Proxy(target, {
      get(t, k) {
        if (k === HANDLE) return marker;
        const encoded = key(k);
        if (encoded === undefined) return undefined;
        return channel.request('get', { h: id, k: encoded });
      },
      has(t, k) {
        const encoded = key(k);
        return encoded !== undefined && channel.request('has', { h: id, k: encoded }) === true;
      },
      ownKeys() {
        const keys = channel.request('keys', { h: id });
        if (!Array.isArray(keys) || keys.some((k) => typeof k !== 'string')) channel._fail('keys that are not names');
        return callable ? keys.concat(Reflect.ownKeys(target).filter((k) => keys.indexOf(k) < 0 && !Reflect.getOwnPropertyDescriptor(target, k).configurable)) : keys;
      },
      getOwnPropertyDescriptor(t, k) {
        const own = Reflect.getOwnPropertyDescriptor(t, k);
        if (own && !own.configurable) return own;
        const encoded = key(k);
        if (encoded === undefined) return undefined;
        const found = channel.request('desc', { h: id, k: encoded });
        if (found === undefined) return undefined;
        return { value: found.value, writable: true, enumerable: found.enumerable === true, configurable: true };
      },
      set(t, k, value) {
        const encoded = key(k);
        if (encoded === undefined) return false;
        channel.request('set', { h: id, k: encoded, v: channel.encode(value) });
        return true;
      },
      deleteProperty(t, k) {
        const encoded = key(k);
        return encoded !== undefined && channel.request('delete', { h: id, k: encoded }) === true;
      },
      defineProperty() {
        return false;
      },
      getPrototypeOf() {
        return callable ? Function.prototype : Object.prototype;
      },
      apply(t, self, args) {
        return channel.request('call', { h: id, s: channel.encode(self), a: channel.encode(args) });
      },
      construct(t, args) {
        return channel.request('new', { h: id, a: channel.encode(args) });
      },
    });
  }
}

function constructorName(value) {
  try {
    const ctor = value.constructor;
    return typeof ctor === 'function' ? String(ctor.name).slice(0, 100) : '';
  } catch (err) {
    return '';
  }
}

// The requests either side answers about its own values.
function serveValues(op, frame, channel) {
  const key = (k) => {
    if (typeof k === 'string') return k;
    const v = channel.decode(k);
    if (typeof v !== 'symbol') throw new TypeError('a property key that is neither a name nor a symbol');
    return v;
  };
  const target = () => channel.local(frame.h);
  switch (op) {
    case 'get': return target()[key(frame.k)];
    case 'has': return key(frame.k) in Object(target());
    case 'keys': return Reflect.ownKeys(Object(target())).filter((k) => typeof k === 'string');
    case 'desc': {
      const obj = Object(target());
      const k = key(frame.k);
      const d = Reflect.getOwnPropertyDescriptor(obj, k);
      return d === undefined ? undefined : { value: obj[k], enumerable: d.enumerable };
    }
    case 'set': target()[key(frame.k)] = channel.decode(frame.v); return true;
    case 'delete': return delete target()[key(frame.k)];
    case 'call': {
      const args = channel.decode(frame.a);
      if (!Array.isArray(args)) throw new TypeError('arguments that are not a list');
      return Reflect.apply(target(), channel.decode(frame.s), args);
    }
    case 'new': {
      const args = channel.decode(frame.a);
      if (!Array.isArray(args)) throw new TypeError('arguments that are not a list');
      return Reflect.construct(target(), args);
    }
    default:
      throw new TypeError('no request ' + JSON.stringify(op));
  }
}

module.exports = { Channel: Channel, ChannelError: ChannelError, serveValues: serveValues };
