#!/usr/bin/python3
# Makes the KeePassXC peer's database for `Scripts/bench peers`: a KDBX 4 file whose KDF is
# Argon2id with the given iterations and memory and ONE lane, as libsodium's crypto_pwhash uses,
# so that `keepassxc-cli show` pays the same key derivation as `swcred request`.
# keepassxc-cli 2.7.4 cannot choose a KDF (its db-create writes KDBX 3.1 with AES-KDF), so this
# uses pykeepass (Debian's python3-pykeepass), then reads the file back and prints what it holds.
#
# Usage: make-kdbx.py PATH ENTRIES ITERATIONS MEMORY_BYTES
#   standard input: the database passphrase, then the password of the first entry, one a line.
#   Entry 0 is "shop.example" (user alice@example.com); the others host1.example ... with
#   throwaway passwords.
import os
import sys

from pykeepass import PyKeePass, create_database
from pykeepass.kdbx_parsing.kdbx4 import kdf_uuids

path, entries, iterations, memory = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
passphrase = sys.stdin.readline().rstrip("\n")
first_password = sys.stdin.readline().rstrip("\n")

database = create_database(path, password=passphrase)
kdf = database.kdbx.header.value.dynamic_header.kdf_parameters.data.dict
kdf["$UUID"].value = kdf_uuids["argon2id"]
kdf["I"].value = iterations
kdf["M"].value = memory
kdf["P"].value = 1
kdf["S"].value = os.urandom(32)  # the template's salt is the same in every new file
del database.kdbx.header["data"]  # rebuild the header (and the key) from the new parameters
database.add_entry(database.root_group, "shop.example", "alice@example.com", first_password)
for index in range(1, entries):
    database.add_entry(database.root_group, f"host{index}.example", f"user{index}@example.com", f"pw-{index}-Xq7#vL9p")
database.save()

kdf = PyKeePass(path, password=passphrase).kdbx.header.value.dynamic_header.kdf_parameters.data.dict
name = {value: key for key, value in kdf_uuids.items()}[kdf["$UUID"].value]
print(f"{name} iterations {kdf['I'].value}, memory {kdf['M'].value >> 10} KiB, lanes {kdf['P'].value}")
