import Foundation

/// Sample export files, written here from each format's published description (column names,
/// quoting, time units), never taken from another project's tests. Passwords are distinct so that
/// a test can look for each in output and files.
enum TransferSamples {
    /// Chrome's `name,url,username,password,note`: a password with a comma, a quote and a line
    /// break; an IDN host and a non-ASCII account; an Android app row; an http site; an empty
    /// password.
    static let chrome = """
        name,url,username,password,note
        example.com,https://example.com/login?next=1,alice,"pa,ss""wo
        rd-1","a note, with a comma"
        bücher.example,https://bücher.example/konto,jürgen,Grüße-Pw-2,
        Android app,android://c2lnbmF0dXJl@com.example.app/,bob,Android-Pw-3,
        plain,http://plain.example/,carol,Plain-Pw-4,
        no password,https://nopass.example/,dave,,

        """

    /// Apple Passwords' `Title,URL,Username,Password,Notes,OTPAuth`.
    static let apple = """
        Title,URL,Username,Password,Notes,OTPAuth
        Shop,https://shop.example:8443/,alice@example.com,Apple-Pw-5,Card on file,otpauth://totp/Shop:alice%40example.com?secret=JBSWY3DPEHPK3PXP&issuer=Shop
        Mail,https://mail.example/,alice,Apple-Pw-6,,

        """

    /// Firefox's quoted columns with times in milliseconds.
    static let firefox = """
        "url","username","password","httpRealm","formActionOrigin","guid","timeCreated","timeLastUsed","timePasswordChanged"
        "https://fox.example","fiona","Fox-Pw-7","","https://fox.example","{0b8e3c5a-1f4e-4a8b-9a53-1c7f2b0d9e11}","1600000000000","1700000000000","1650000000000"

        """

    /// Bitwarden's CSV: a login with two URIs and a bare TOTP secret, and a secure note.
    static let bitwardenCSV = """
        folder,favorite,type,name,notes,fields,reprompt,login_uri,login_username,login_password,login_totp
        Work,1,login,Intranet,VPN too,,0,"https://intra.example,https://sso.example",walt,Warden-Pw-8,JBSWY3DPEHPK3PXP
        ,,note,Wifi,The password is on the router,,0,,,,

        """

    /// Bitwarden's unencrypted JSON: a login and a card.
    static let bitwardenJSON = """
        {"encrypted": false, "folders": [], "items": [
          {"id": "1b3b6f2a-0000-4000-8000-000000000001", "type": 1, "name": "Forum", "notes": "old account",
           "favorite": false, "reprompt": 0, "creationDate": "2023-01-02T03:04:05.000Z",
           "revisionDate": "2024-05-06T07:08:09.123Z",
           "login": {"uris": [{"match": null, "uri": "https://forum.example/"}], "username": "wendy",
                     "password": "Json-Pw-9", "totp": "otpauth://totp/Forum:wendy?secret=GEZDGNBVGY3TQOJQ"}},
          {"id": "1b3b6f2a-0000-4000-8000-000000000002", "type": 3, "name": "Visa",
           "card": {"cardholderName": "W", "number": "4111111111111111"}}
        ]}
        """

    /// Bitwarden's encrypted JSON, which must be refused.
    static let bitwardenEncrypted = """
        {"encrypted": true, "passwordProtected": true, "salt": "c2FsdA==", "kdfType": 0, "kdfIterations": 600000,
         "encKeyValidation_DO_NOT_EDIT": "2.abc|def|ghi", "data": "2.jkl|mno|pqr"}
        """

    /// KeePassXC's ten columns, times in ISO 8601.
    static let keepassxc = """
        "Group","Title","Username","Password","URL","Notes","TOTP","Icon","Last Modified","Created"
        "Root/Web","Git host","kim","Kee-Pw-10","https://git.example/","","otpauth://totp/Git:kim?secret=MFRGGZDFMZTWQ2LK","0","2024-03-01T10:00:00Z","2022-03-01T10:00:00Z"

        """

    /// KeePassXC's older six columns; the URL is a bare host.
    static let keepassxcSix = """
        "Group","Title","Username","Password","URL","Notes"
        "Root","Wiki","kai","Kee-Pw-11","wiki.example",""

        """

    /// CXF 1.0: a login with a note and a TOTP, an item with only a passkey (an Ed25519 key whose
    /// seed is the bytes 1 to 32), and a card.
    static let cxf = """
        {"version": {"major": 1, "minor": 0}, "exporterRpId": "exporter.example",
         "exporterDisplayName": "Exporter", "timestamp": 1705228800,
         "accounts": [{"id": "QUJD", "username": "owner", "email": "owner@example.com", "collections": [],
           "items": [
             {"id": "SVRFTTE", "creationAt": 1700000000, "modifiedAt": 1705000000, "title": "Bank",
              "scope": {"urls": ["https://bank.example/"], "androidApps": []},
              "credentials": [
                {"type": "basic-auth", "username": {"fieldType": "string", "value": "bert"},
                 "password": {"fieldType": "concealed-string", "value": "Cxf-Pw-12"}},
                {"type": "note", "content": {"fieldType": "string", "value": "branch 42"}},
                {"type": "totp", "secret": "JBSWY3DPEHPK3PXP", "period": 30, "digits": 6, "username": "bert",
                 "algorithm": "sha1", "issuer": "Bank"}]},
             {"id": "SVRFTTI", "creationAt": 1700000000, "modifiedAt": 1705000000, "title": "Passkey only",
              "scope": {"urls": ["https://keys.example/"], "androidApps": []},
              "credentials": [{"type": "passkey", "credentialId": "cGFzc2tleS1jcmVkLWlkIQ", "rpId": "keys.example",
                               "username": "bert", "userDisplayName": "Bert", "userHandle": "dXNlcg",
                               "key": "MC4CAQAwBQYDK2VwBCIEIAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8g"}]},
             {"id": "SVRFTTM", "title": "A card", "credentials": [{"type": "credit-card", "number": "4111"}]}]}]}
        """

    /// 1PUX's export.data: a login with a TOTP section field, and a secure note (no login).
    static let onePUXData = """
        {"accounts": [{"attrs": {"accountName": "Owner", "name": "Owner", "email": "owner@example.com"},
          "vaults": [{"attrs": {"uuid": "v1", "name": "Personal"}, "items": [
            {"uuid": "i1", "favIndex": 0, "createdAt": 1600000000, "updatedAt": 1700000000, "state": "active",
             "categoryUuid": "001",
             "details": {"loginFields": [
                 {"value": "olga", "name": "username", "fieldType": "T", "designation": "username"},
                 {"value": "One-Pw-13", "name": "password", "fieldType": "P", "designation": "password"}],
               "notesPlain": "from 1Password",
               "sections": [{"title": "", "fields": [{"title": "one-time password", "id": "TOTP_1",
                 "value": {"totp": "otpauth://totp/Club:olga?secret=KRSXG5CTMVRXEZLU"}}]}]},
             "overview": {"title": "Club", "url": "https://club.example/", "urls": [{"label": "", "url": "https://club.example/"}]}},
            {"uuid": "i2", "favIndex": 0, "createdAt": 1600000000, "updatedAt": 1700000000, "state": "active",
             "categoryUuid": "003", "details": {"notesPlain": "a secure note"}, "overview": {"title": "Note"}}]}]}]}
        """
}
