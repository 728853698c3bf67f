#if AsyncHTTPClient
/// A self-signed certificate for `localhost` and 127.0.0.1 (RSA 2048, valid for 100 years), made once with
/// `openssl req -x509 -newkey rsa:2048 -nodes -days 36500 -subj /CN=localhost
/// -addext subjectAltName=DNS:localhost,IP:127.0.0.1`, for the HTTP/2-over-TLS test server only.
enum TestCertificate {
    static let certificatePEM = """
        -----BEGIN CERTIFICATE-----
        MIIDJzCCAg+gAwIBAgIUYDNkImYTAz5gaKhcVS7GnHBUu0MwDQYJKoZIhvcNAQEL
        BQAwFDESMBAGA1UEAwwJbG9jYWxob3N0MCAXDTI2MTEyMzE0MTA0NVoYDzIxMjYx
        MDMwMTQxMDQ1WjAUMRIwEAYDVQQDDAlsb2NhbGhvc3QwggEiMA0GCSqGSIb3DQEB
        AQUAA4IBDwAwggEKAoIBAQCWqX62tbjnt1LwKj6IItmuZ5FwueeUYXGehwpsq0zj
        dyb/qU809yeCJ2C3WxdVRQeCTNIT/E+WyAluuXeaGMRFxevxYrres+eePDQRsh2H
        3FTLOT3RnRZQjQ5gwxTvB2ncqeekMZaK6oKUHNBnFKTIvIBjZq66kv+PIG5SxaQk
        AU+W6u9nl4qop0SFnawZT2pPv0v8ksrGkJF7E7NGgZgAY3XlRZ2NMmVbmfFhFgMe
        7jBojbxog/liQQyItFVn/P3VyHC89DznikNtWka8X5LrFAGCp6ZMWskMke7X+IQq
        /9kyCAJXTqUn8exCvZVRVfQ/ltpWfRM8qpiSao/mPNKTAgMBAAGjbzBtMB0GA1Ud
        DgQWBBTi+0OaGNZTQvW2+8SzyFVXinSTdjAfBgNVHSMEGDAWgBTi+0OaGNZTQvW2
        +8SzyFVXinSTdjAPBgNVHRMBAf8EBTADAQH/MBoGA1UdEQQTMBGCCWxvY2FsaG9z
        dIcEfwAAATANBgkqhkiG9w0BAQsFAAOCAQEAReO89WxAma3jxc51fb29T0HIF07L
        KOahTAyj+nXNf+X50KowrdzPCOsKRASJIh/SSbrkIHWMep7IV5f95yVrkZGkb2Uc
        m1UpmgrNGCLNljRha8c27ULQbvZY9p9+xwfUZk3106pMISb7afp7MGnmZgoJoXSB
        HxZo+8d1wkk/ppBztLAzUIIph0ntKEkHaaRBhMZz85Xo+oWnIF7pp9ACOFDkJd94
        ub9D51FV3uHSLbgE5Z4W5rl7AzXK4NEq1XS++L4iqIk/iIgAtFrcsunDyufvzk96
        7xP3NnCdGAQUYfkM7CNrqNWdJIkt2K2qm0p4elAxpnvv+1nXRkPL/rzshg==
        -----END CERTIFICATE-----
        """

    static let privateKeyPEM = """
        -----BEGIN PRIVATE KEY-----
        MIIEvAIBADANBgkqhkiG9w0BAQEFAASCBKYwggSiAgEAAoIBAQCWqX62tbjnt1Lw
        Kj6IItmuZ5FwueeUYXGehwpsq0zjdyb/qU809yeCJ2C3WxdVRQeCTNIT/E+WyAlu
        uXeaGMRFxevxYrres+eePDQRsh2H3FTLOT3RnRZQjQ5gwxTvB2ncqeekMZaK6oKU
        HNBnFKTIvIBjZq66kv+PIG5SxaQkAU+W6u9nl4qop0SFnawZT2pPv0v8ksrGkJF7
        E7NGgZgAY3XlRZ2NMmVbmfFhFgMe7jBojbxog/liQQyItFVn/P3VyHC89DznikNt
        Wka8X5LrFAGCp6ZMWskMke7X+IQq/9kyCAJXTqUn8exCvZVRVfQ/ltpWfRM8qpiS
        ao/mPNKTAgMBAAECggEACG1lru7+RJ5+r1Flmwl8AfiSwZVHLLJrVRHlADbFamnP
        +XgCfAohIHN3F6Uq6nRIhb4p+BU3wc2MUtsL+Md5ib+W7DMjacadZj6kLk3iFKc7
        P6eC24vnuMy9vlAwhmhJ6x5pMcgrordDDj7dsg5iY0TBV7i20wKFn1S8kbkIGT1l
        j5C8hHeFql+Wc1Fe9Vto2sEv5yqIew49BzrE1IN6M5nTXHNkxG77I1FI+K82Xbp8
        eqFyluN2PL2XliThWaYVlEpVduOlQzMbCFRJhT5VshsSMVrFrcA6gLNrRBLBbStb
        kpIXp/+0d1nckhqecGNSrxLPw4kHi7q+aoCU8dHfPQKBgQDFRLzBl8715XXaXVJJ
        IgCInRRGOYPVTzuORvTWWE8bM4ifkac0lidqMkTAi+qOprMQk4IZImwXeibcka/G
        SE/sqwoNcR8S/hXkSe0inPsMps7kDsgee0tTlrLLB2TUfvO4VHB1NixWgQINZxkY
        ABAgpYRbjTqPkAawrIySd6535wKBgQDDhIt+p1XPrL85myYoSh4El4LnSiUt2ddL
        MW856Aq/oD2Yy5BzhaNphmRcBvXRoeWz6zYU3s4eBQaHjiQZ575YwXClEHdOy40x
        bMa8r0LMgyMM01+pfJdHrXEVcO0P65aRsvtRENZjb3o9lCGASPG306aW+Jk1Ka5h
        53NAmIcKdQKBgC6Dl7JaNk2azmAv0wA1iUStLSOl2iUI6rUQnBiSeAyk6RkfAfsP
        ULnkont4QlVijyRgc7OzfyNGBTXLEFRDprzaU6N5web7jHPozoZz12pTRsNVjPBL
        CCbsiLoAw1CropIbLu0kWe4Hu1Enty4Gjcb04DGqKl3BiyJLfVXn7HaPAoGASSUf
        IsTrf4Q7DgwTHGOOE12zZWABxMOIneLin6FF1CbYpH8TjYRjfCkBBsS71i9hRgwq
        8WfhaK2soa31p5NhTMchoz8jw2C3c9QkDZbrwKMWy8eQNFIeLnyen8zdg2U5sUxq
        ZQuNiSm9a6gtWFbxxznxSu26M39ic9Io9fOaIbkCgYBQpHD6hkV4W8CCkwen07+T
        0hhHdIdkCZO1d+mrcFlRHcRF+CkIoUceuA2BHwCjOjxQwVBJkM65tTXFSSufPeC/
        sTVM8MVs94w3VdI5FZ0d5rRRu6gKS08VwUpOauGUUju+EjQNIKTu0T7gnTwrulWd
        N7atqktY+0hj/T93CY2Ykw==
        -----END PRIVATE KEY-----
        """
}
#endif
