#!/usr/bin/env python3
"""Where a shard's bytes are: each LMDB database's pages, and each field of the `docs` records.

Usage: python3 scripts/record-sizes.py GENERATION_DIR [--zstd]

GENERATION_DIR is a generation folder of a shard (SHARD/gen-NNNNNN, holding data.mdb). The
script prints, per database, its pages and bytes per document; then, per field of the version 2 or 3
document records (the layout `DocumentRecord` documents in Sources/Index/Documents), bytes per
record. With --zstd it also prints what zstd would make of the records: one by one with a
dictionary trained on a sample, only their cold tail (aliases and description as written), and
in blocks of 32.

A measuring tool for the index's size (issue 12), not part of the product: it needs the `lmdb`
Python package (and `zstandard` for --zstd): `pip install lmdb zstandard`. It opens the
environment read-only and changes nothing.
"""
import collections
import random
import sys


def varint(data, i):
    value, shift = 0, 0
    while True:
        byte = data[i]
        i += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, i


def length_prefixed(data, i):
    n, i = varint(data, i)
    return data[i:i + n], i + n


def main():
    args = [a for a in sys.argv[1:] if not a.startswith('--')]
    if len(args) != 1:
        sys.exit(__doc__)
    import lmdb
    env = lmdb.open(args[0], readonly=True, lock=False, max_dbs=64, subdir=True)
    with env.begin() as txn:
        names = [key for key, _ in txn.cursor()]
    docs = env.open_db(b'docs', create=False)
    records, tails = [], []
    fields = collections.Counter()
    with env.begin() as txn:
        for _, value in txn.cursor(docs):
            record = bytes(value)
            # Versions 2 and 3 differ only inside the attributes (keys numbered in version 3).
            if record[0] not in (2, 3):
                sys.exit('a version %d record: this script reads versions 2 and 3 only' % record[0])
            _, i = varint(record, 1)
            for name in ('hit head', 'sortTitle', 'title word ranges', 'alias words', 'alias sources',
                         'attributes', 'description words'):
                part, i = length_prefixed(record, i)
                fields[name] += len(part)
            fields['aliases and description as written'] += len(record) - i
            fields['whole record'] += len(record)
            records.append(record)
            tails.append(record[i:])
        count = len(records) or 1
        print('databases (pages of 4 KiB; bytes per document):')
        for name in names:
            try:
                stat = txn.stat(env.open_db(name, txn=txn, create=False))
            except lmdb.Error:
                continue
            pages = stat['branch_pages'] + stat['leaf_pages'] + stat['overflow_pages']
            print('  %-22s %8d pages %8.1f B' % (name.decode(errors='replace'), pages, pages * 4096 / count))
    print('docs records: %d, bytes per record:' % len(records))
    for name, total in fields.items():
        print('  %-36s %7.1f' % (name, total / count))
    if '--zstd' in sys.argv:
        import zstandard
        rng = random.Random(1)
        sample = rng.sample(range(len(records)), min(len(records), 20000))
        for label, items in (('whole records, dictionary', records), ('cold tails, dictionary', tails)):
            dictionary = zstandard.train_dictionary(65536, [items[k] for k in sample if items[k]])
            compressor = zstandard.ZstdCompressor(level=3, dict_data=dictionary, write_content_size=False,
                                                  write_checksum=False, write_dict_id=False)
            raw = sum(len(x) for x in items)
            packed = sum(len(compressor.compress(x)) for x in items if x)
            print('zstd %-28s %.2f× (%d → %d bytes)' % (label, raw / max(packed, 1), raw, packed))
        compressor = zstandard.ZstdCompressor(level=3)
        raw = packed = 0
        for start in range(0, len(records), 32):
            block = b''.join(records[start:start + 32])
            raw += len(block)
            packed += len(compressor.compress(block))
        print('zstd %-28s %.2f× (%d → %d bytes)' % ('blocks of 32 records', raw / max(packed, 1), raw, packed))


if __name__ == '__main__':
    main()
