#!/usr/bin/python3
# Makes KeePassXC's database for `Scripts/bench browser` (Benchmarks/keepassxc-browser.sh): the same
# credentials as the swcred vault of Benchmarks/service-setup.sh, and a browser already associated,
# so that KeePassXC answers get-logins with no dialog.
#
# Usage: make-keepassxc-browser-db.py PATH FILLERS ASSOCIATION_ID ID_KEY
#   standard input: the database passphrase, then the password of the benchmark's credential.
#   Entry 0 is https://shop.example/ (user bench@example.com); the others are the fillers of
#   `service-bench fill`: https://filler<i>.example/, user<i>@example.com, pw-<i>-Xq7#vL9p.
#   The association is what KeePassXC 2.7.4 itself writes when the user approves a browser
#   (BrowserService::storeKey): the database's custom data KPXC_BROWSER_<id> = the browser's
#   identification public key, base64. pykeepass (Debian's python3-pykeepass) has no call for the
#   database's custom data, so the item goes into its XML (Meta/CustomData) directly.
import base64
import copy
import datetime
import sys
import uuid

from lxml import etree
from pykeepass import create_database

path, fillers, association_id, id_key = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
passphrase = sys.stdin.readline().rstrip("\n")
password = sys.stdin.readline().rstrip("\n")

database = create_database(path, password=passphrase)
database.add_entry(database.root_group, "shop.example", "bench@example.com", password, url="https://shop.example/")
# The fillers are copies of entry 0's XML with their own UUID and strings: pykeepass's add_entry
# takes time that grows with the entries already there (hours for 100,000).
template = database.root_group._element.find("Entry")
for index in range(fillers):
    entry = copy.deepcopy(template)
    entry.find("UUID").text = base64.b64encode(uuid.uuid4().bytes).decode()
    strings = {string.find("Key").text: string.find("Value") for string in entry.findall("String")}
    strings["Title"].text = f"filler{index}.example"
    strings["UserName"].text = f"user{index}@example.com"
    strings["Password"].text = f"pw-{index}-Xq7#vL9p"
    strings["URL"].text = f"https://filler{index}.example/"
    template.getparent().append(entry)

meta = database.tree.find("Meta")
custom_data = meta.find("CustomData")
if custom_data is None:
    custom_data = etree.SubElement(meta, "CustomData")
item = etree.SubElement(custom_data, "Item")
etree.SubElement(item, "Key").text = f"KPXC_BROWSER_{association_id}"
etree.SubElement(item, "Value").text = id_key
now = datetime.datetime.now(datetime.timezone.utc)
etree.SubElement(item, "LastModificationTime").text = database._encode_time(now)
database.save()
print(f"{path}: {fillers + 1} entries, browser {association_id} associated")
