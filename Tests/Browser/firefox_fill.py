"""Debian's Firefox ESR with Debian's KeePassXC-Browser, driven through Marionette.

Started by Tests/swcredTests/Service/ServiceFirefoxTests.swift, which runs `swcred serve --browser`,
writes the native-messaging manifest with `swcred browser install --browser firefox` into the HOME
it gives this script, serves shop.example's pages over HTTPS on a loopback port with a test CA,
and answers the association request as the owner.

What this script does, each step reported on standard output as one line (the Swift test reads
them; anything else goes to standard error):

1. a fresh profile trusting the test's CA (certutil on its cert9.db), every name resolving to
   127.0.0.1 and port 443 sent to the pages' port; headless Firefox with Marionette on a free port;
2. the extension installed as a temporary add-on (the unpacked folder Debian ships);
3. on the extension's own options page: "Automatically fill in single-credential entries" on, then
   "Connect" (the `associate` request the owner approves) -> `associating`, then `associated NAME`
   once the connected-databases table lists the association;
4. https://shop.example/login: waits until the extension has filled both fields with the expected
   credential, saves a screenshot -> `filled PATH`;
5. https://shop.example/signup: types a new login and password, submits; on the next page the
   extension's credential banner offers to save; clicks "New" -> `saved`.

Exits 0 when every step passed; otherwise 1 with the reason on standard error.
"""

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

from marionette_driver import By, Wait
from marionette_driver.addons import Addons
from marionette_driver.errors import MarionetteException
from marionette_driver.marionette import Marionette


def say(line):
    print(line, flush=True)


def log(line):
    print(line, file=sys.stderr, flush=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def make_profile(directory, ca_file, pages_port, marionette_port):
    prefs = {
        # Every host name is 127.0.0.1, and https://shop.example/ (port 443) reaches the pages'
        # port: the pages keep the URL, and so the host and port, that the vault's logins name.
        "network.dns.forceResolve": "127.0.0.1",
        "network.socket.forcePort": f"443={pages_port}",
        "network.proxy.type": 0,
        "marionette.port": marionette_port,
        # The extension is installed as a temporary add-on only: Debian's system-wide copy
        # (/usr/share/mozilla/extensions, scope 8) stays out of this profile.
        "extensions.enabledScopes": 5,
        "extensions.autoDisableScopes": 0,
        "browser.shell.checkDefaultBrowser": False,
        "browser.startup.homepage_override.mstone": "ignore",
        "browser.aboutwelcome.enabled": False,
        "datareporting.policy.dataSubmissionEnabled": False,
        "toolkit.telemetry.reportingpolicy.firstRun": False,
        "app.update.disabledForTesting": True,
        "signon.rememberSignons": False,
        "signon.autofillForms": False,
        "browser.safebrowsing.malware.enabled": False,
        "browser.safebrowsing.phishing.enabled": False,
        "network.captive-portal-service.enabled": False,
        "network.connectivity-service.enabled": False,
        "extensions.getAddons.cache.enabled": False,
        "extensions.update.enabled": False,
        # The extension's console messages in Firefox's output, which the test shows on failure.
        "devtools.console.stdout.chrome": True,
        "devtools.console.stdout.content": True,
    }
    with open(os.path.join(directory, "user.js"), "w") as f:
        for name, value in prefs.items():
            text = "true" if value is True else "false" if value is False else repr(value) if isinstance(value, int) else '"%s"' % value
            f.write(f'user_pref("{name}", {text});\n')
    database = "sql:" + directory
    subprocess.run(["certutil", "-N", "-d", database, "--empty-password"], check=True)
    subprocess.run(["certutil", "-A", "-d", database, "-n", "swcred test CA", "-t", "C,,", "-i", ca_file], check=True)


def wait_for(client, what, condition, timeout):
    try:
        return Wait(client, timeout=timeout, interval=0.25, ignored_exceptions=(MarionetteException,)).until(
            condition, message=what)
    except Exception as error:
        raise SystemExit(f"timed out: {what} ({error})")


def value_of(client, selector):
    return client.execute_script("return document.querySelector(arguments[0])?.value ?? null", script_args=[selector])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--firefox", default="/usr/bin/firefox-esr")
    parser.add_argument("--extension", default="/usr/share/webext/keepassxc-browser")
    parser.add_argument("--home", required=True, help="HOME with .mozilla/native-messaging-hosts")
    parser.add_argument("--ca-file", required=True)
    parser.add_argument("--pages-port", type=int, required=True)
    parser.add_argument("--screenshot", required=True)
    parser.add_argument("--login", required=True)
    parser.add_argument("--password", required=True)
    parser.add_argument("--new-login", required=True)
    parser.add_argument("--new-password", required=True)
    parser.add_argument("--timeout", type=float, default=60)
    arguments = parser.parse_args()

    for tool in (arguments.firefox, shutil.which("certutil") or "certutil"):
        if not os.access(tool, os.X_OK):
            raise SystemExit(f"{tool} is missing: run Scripts/bootstrap")
    if not os.path.isfile(os.path.join(arguments.extension, "manifest.json")):
        raise SystemExit(f"the extension is missing ({arguments.extension}): run Scripts/bootstrap")

    profile = tempfile.mkdtemp(prefix="swcred-firefox-profile-")
    marionette_port = free_port()
    make_profile(profile, arguments.ca_file, arguments.pages_port, marionette_port)
    environment = dict(os.environ, HOME=arguments.home, MOZ_HEADLESS="1", MOZ_CRASHREPORTER_DISABLE="1")
    environment.pop("DISPLAY", None)
    firefox_log = open(os.path.join(profile, "firefox.log"), "w")
    firefox = subprocess.Popen(
        [arguments.firefox, "-marionette", "-remote-allow-system-access", "-headless", "-no-remote", "-profile", profile],
        env=environment, stdout=firefox_log, stderr=subprocess.STDOUT)
    client = None
    try:
        client = Marionette(host="127.0.0.1", port=marionette_port)
        client.raise_for_port(timeout=arguments.timeout)
        client.start_session()
        client.set_window_rect(width=1024, height=768)
        addon = Addons(client).install(arguments.extension, temp=True)
        log(f"installed {addon}")
        with client.using_context("chrome"):
            uuids = client.execute_script(
                "return Services.prefs.getStringPref('extensions.webextensions.uuids', '{}')")
        uuid = json.loads(uuids)[addon]
        base = f"moz-extension://{uuid}"

        # The extension's own page: fill single entries automatically, then Connect.
        client.navigate(f"{base}/options/options.html")
        box = wait_for(client, "the options page", lambda c: c.find_element(By.ID, "autoFillSingleEntry"), 30)
        if not box.is_selected():
            box.click()
        wait_for(client, "autoFillSingleEntry checked", lambda c: box.is_selected(), 10)
        time.sleep(1)  # the page saves the setting to the extension's storage on the change event
        client.find_element(By.CSS_SELECTOR, "a[href='#connected-databases']").click()
        connect = wait_for(client, "the Connect button", lambda c: c.find_element(By.ID, "connect-button"), 10)
        wait_for(client, "the Connect button shown", lambda c: connect.is_displayed(), 10)
        connect.click()
        say("associating")
        rows = "#tab-connected-databases table tbody tr:not(.empty):not(.clone)"
        wait_for(client, "the association in the connected-databases table",
                 lambda c: c.execute_script("return document.querySelectorAll(arguments[0]).length", script_args=[rows]) > 0,
                 arguments.timeout)
        name = client.execute_script(
            "return document.querySelector(arguments[0]).children[0].textContent", script_args=[rows])
        say(f"associated {name}")

        # The login page, filled from the vault.
        client.navigate("https://shop.example/login")
        wait_for(client, f"the login form filled with {arguments.login}",
                 lambda c: value_of(c, "#username") == arguments.login and value_of(c, "#password") == arguments.password,
                 arguments.timeout)
        os.makedirs(os.path.dirname(os.path.abspath(arguments.screenshot)), exist_ok=True)
        with open(arguments.screenshot, "wb") as f:
            f.write(client.screenshot(format="binary", full=True))
        say(f"filled {arguments.screenshot}")

        # A sign-up: the new password, submitted; the banner on the next page saves it.
        client.navigate("https://shop.example/signup")
        username = wait_for(client, "the sign-up form", lambda c: c.find_element(By.ID, "username"), 30)
        password = client.find_element(By.ID, "password")
        # The extension fills this form too (the site's one login): let it, then type over it.
        try:
            Wait(client, timeout=10, interval=0.25).until(lambda c: value_of(c, "#username") == arguments.login)
        except Exception:
            log("the sign-up form was not filled by the extension; typing into it anyway")
        username.clear()
        username.send_keys(arguments.new_login)
        password.clear()
        password.send_keys(arguments.new_password)
        wait_for(client, "the sign-up form holding the new login",
                 lambda c: value_of(c, "#username") == arguments.new_login and value_of(c, "#password") == arguments.new_password,
                 10)
        client.find_element(By.ID, "submit").click()
        wait_for(client, "the welcome page", lambda c: c.get_url().endswith("/welcome"), 30)

        def new_button(c):
            for host in c.find_elements(By.CSS_SELECTOR, "body > div"):
                try:
                    root = host.shadow_root
                except MarionetteException:
                    continue
                for button in root.find_elements(By.CSS_SELECTOR, "#kpxc-banner-btn-new"):
                    return button
            return None

        button = wait_for(client, "the extension's credential banner", new_button, arguments.timeout)
        wait_for(client, "the banner shown", lambda c: button.is_displayed(), 10)
        button.click()
        say("saved")
        time.sleep(3)  # let the set-login round trip finish before Firefox quits
        return 0
    finally:
        if client is not None:
            try:
                client.delete_session()
            except Exception:
                pass
        firefox.terminate()
        try:
            firefox.wait(timeout=10)
        except subprocess.TimeoutExpired:
            firefox.kill()
        firefox_log.close()
        with open(os.path.join(profile, "firefox.log")) as f:
            text = f.read()
        if text.strip():
            log("firefox: " + text[-4000:])
        shutil.rmtree(profile, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
