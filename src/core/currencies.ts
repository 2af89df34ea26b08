/** Active ISO 4217 currency codes (ICU's list of current currencies, plus VED, minus HRK withdrawn in 2023), lower case. */
const CODES = `
aed afn all amd ang aoa ars aud awg azn bam bbd bdt bgn bhd bif bmd bnd bob brl bsd btn bwp byn bzd cad cdf chf clp
cny cop crc cuc cup cve czk djf dkk dop dzd egp ern etb eur fjd fkp gbp gel ghs gip gmd gnf gtq gyd hkd hnl htg
huf idr ils inr iqd irr isk jmd jod jpy kes kgs khr kmf kpw krw kwd kyd kzt lak lbp lkr lrd lsl lyd mad mdl mga mkd
mmk mnt mop mru mur mvr mwk mxn myr mzn nad ngn nio nok npr nzd omr pab pen pgk php pkr pln pyg qar ron rsd rub rwf
sar sbd scr sdg sek sgd shp sle sll sos srd ssp stn svc syp szl thb tjs tmt tnd top try ttd twd tzs uah ugx usd uyu
uzs ved ves vnd vuv wst xaf xcd xcg xdr xof xpf xsu yer zar zmw zwg zwl
`;

export const CURRENCIES: ReadonlySet<string> = new Set(CODES.trim().split(/\s+/));
