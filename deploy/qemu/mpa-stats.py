#!/usr/bin/env python3
"""Reads a capture of iWARP traffic (pcap; Ethernet or Linux cooked) and prints, per direction, counts of the MPA/DDP/RDMAP
messages in it: RDMAP opcodes, READ Request sizes, READ Response payloads, Terminates, DDP segments that are not the
last (RFC 5044/5041/5040). No tshark needed. Usage: deploy/qemu/mpa-stats.py [--port N] CAPTURE.pcap...
Written to set the nvme-siw.sh captures side by side (docs/benchmarks/siw-interop.md)."""
import struct, sys, collections

def read_pcap(path):
    with open(path, 'rb') as f:
        data = f.read()
    magic = struct.unpack('<I', data[:4])[0]
    if magic in (0xa1b2c3d4, 0xa1b23c4d): e = '<'
    else: e = '>'
    nsres = magic == 0xa1b23c4d
    linktype = struct.unpack(e + 'I', data[20:24])[0]
    off = 24; n = 0
    while off + 16 <= len(data):
        ts, tus, incl, orig = struct.unpack(e + 'IIII', data[off:off+16])
        off += 16
        pkt = data[off:off+incl]; off += incl
        if len(pkt) < incl: break
        n += 1
        yield n, ts + tus / (1e9 if nsres else 1e6), linktype, pkt

def tcp_segments(path):
    for n, t, lt, pkt in read_pcap(path):
        if lt == 1:
            if len(pkt) < 14: continue
            et = struct.unpack('>H', pkt[12:14])[0]; ip = pkt[14:]
            if et != 0x0800: continue
        elif lt == 113:
            ip = pkt[16:]
        else:
            ip = pkt
        if len(ip) < 20 or ip[0] >> 4 != 4 or ip[9] != 6: continue
        ihl = (ip[0] & 15) * 4; tot = struct.unpack('>H', ip[2:4])[0]
        src = '.'.join(map(str, ip[12:16])); dst = '.'.join(map(str, ip[16:20]))
        tcp = ip[ihl:tot]
        sp, dp, seq, ack = struct.unpack('>HHII', tcp[:12])
        doff = (tcp[12] >> 4) * 4; flags = tcp[13]
        win = struct.unpack('>H', tcp[14:16])[0]
        yield dict(n=n, t=t, src=src, dst=dst, sp=sp, dp=dp, seq=seq, ack=ack, flags=flags, win=win,
                   payload=tcp[doff:])

class Stream:
    def __init__(self): self.isn = None; self.next = None; self.buf = bytearray(); self.pending = {}
    def add(self, s):
        if s['flags'] & 2:  # SYN
            self.isn = s['seq']; self.next = (s['seq'] + 1) & 0xffffffff; return
        if self.next is None: return
        p = s['payload']
        if not p: return
        rel = (s['seq'] - self.next) & 0xffffffff
        if rel >= 0x80000000:  # old data / retransmission overlapping
            back = (self.next - s['seq']) & 0xffffffff
            if back >= len(p): self.retx = getattr(self, 'retx', 0) + 1; return
            p = p[back:]; rel = 0
        if rel > 0:
            self.pending[(s['seq']) & 0xffffffff] = (p, s); return
        self.buf += p; self.next = (self.next + len(p)) & 0xffffffff
        while self.pending:
            hit = None
            for sq, (pp, ss) in self.pending.items():
                r = (sq - self.next) & 0xffffffff
                if r == 0 or r >= 0x80000000: hit = sq; break
            if hit is None: break
            pp, ss = self.pending.pop(hit)
            back = (self.next - hit) & 0xffffffff
            if back < len(pp):
                pp = pp[back:]
                self.buf += pp; self.next = (self.next + len(pp)) & 0xffffffff

OPS = {0: 'WRITE', 1: 'RREQ', 2: 'RRESP', 3: 'SEND', 4: 'SEND_INV', 5: 'SEND_SE', 6: 'SEND_SE_INV', 7: 'TERM'}

def parse_mpa(buf):
    """Returns (req/rep dict, list of fpdus)."""
    key = buf[:16]
    if not (key.startswith(b'MPA ID Req Frame') or key.startswith(b'MPA ID Rep Frame')):
        return None, [], 0
    flags = buf[16]; rev = buf[17]; pdlen = struct.unpack('>H', buf[18:20])[0]
    pd = bytes(buf[20:20+pdlen])
    hs = dict(key=bytes(key), marker=bool(flags & 0x80), crc=bool(flags & 0x40), reject=bool(flags & 0x20), rev=rev, pd=pd.hex())
    off = 20 + pdlen
    out = []
    while off + 2 <= len(buf):
        ulen = struct.unpack('>H', buf[off:off+2])[0]
        pad = (-(2 + ulen)) & 3
        total = 2 + ulen + pad + 4
        if off + total > len(buf):
            out.append(dict(off=off, trunc=True, ulen=ulen)); break
        d = buf[off+2:off+2+ulen]
        crc = struct.unpack('>I', buf[off+2+ulen+pad:off+total])[0]
        f = dict(off=off, ulen=ulen, pad=pad, crc=crc)
        if ulen < 2:
            f['bad'] = 'short'; out.append(f); off += total; continue
        ddp = d[0]; rd = d[1]
        f['T'] = bool(ddp & 0x80); f['L'] = bool(ddp & 0x40); f['dv'] = ddp & 3; f['rv'] = rd >> 6; f['op'] = rd & 15
        f['opn'] = OPS.get(f['op'], '?%d' % f['op'])
        if f['T']:
            f['stag'], f['to'] = struct.unpack('>IQ', d[2:14]); hl = 14
        else:
            f['inv'], f['qn'], f['msn'], f['mo'] = struct.unpack('>IIII', d[2:18]); hl = 18
        pl = d[hl:]
        f['plen'] = len(pl)
        if f['op'] == 1 and not f['T'] and len(pl) >= 28:
            f['sink_stag'], f['sink_to'], f['size'], f['src_stag'], f['src_to'] = struct.unpack('>IQIIQ', pl[:28])
        if f['op'] == 7:
            f['term'] = pl.hex()
        out.append(f); off += total
    return hs, out, off

def load(path):
    streams = collections.OrderedDict()
    for s in tcp_segments(path):
        k = (s['src'], s['sp'], s['dst'], s['dp'])
        st = streams.setdefault(k, Stream())
        st.add(s)
    return streams


def stats(path, port):
    streams = load(path)
    S = {'H->T': collections.Counter(), 'T->H': collections.Counter()}
    conns = set()
    for k, st in streams.items():
        hs, fr, end = parse_mpa(st.buf)
        if not hs: continue
        who = 'H->T' if k[3] == port else 'T->H'
        conns.add(tuple(sorted([k[1], k[3]])))
        c = S[who]
        c['MPA C flag=%s' % hs['crc']] += 1
        for f in fr:
            if f.get('trunc'): c['truncated'] += 1; continue
            c[f['opn']] += 1
            if not f['L']: c['%s non-last DDP segments' % f['opn']] += 1
            if f['op'] == 1: c['RREQ size=%d' % f['size']] += 1
            if f['op'] == 2: c['RRESP payload=%d' % f['plen']] += 1
            if f['op'] == 7: c['TERM ' + f['term'][:8]] += 1
            if f['op'] in (0, 2): c['max tagged payload'] = max(c['max tagged payload'], f['plen'])
            if f['op'] in (3,4,5,6): c['max untagged payload'] = max(c['max untagged payload'], f['plen'])
    return len(conns), S
args = sys.argv[1:]
port = 4420
if args[:1] == ['--port']:
    port = int(args[1])
    args = args[2:]
for path in args:
    n, S = stats(path, port)
    print('==', path, 'connections', n)
    for who in S:
        print('  ', who, ', '.join('%s: %d' % kv for kv in sorted(S[who].items())))
