"""The demo corpus's clinical tables: names, histories, each unit's conditions and the planted trends.

:mod:`nodes.demo.corpus` draws from these to write notes; they are data, kept apart from the generator so
either can be read on its own. Changing a table changes the generated corpus (and every demo index).
"""

from __future__ import annotations

from dataclasses import dataclass

# ---------------------------------------------------------------------------
# Clinical content: names, generic history, unit conditions
# ---------------------------------------------------------------------------

MALE_FIRST = (
    "James", "John", "Robert", "Michael", "William", "David", "Richard", "Joseph",
    "Thomas", "Charles", "Daniel", "Matthew", "Anthony", "Mark", "Steven", "Paul",
    "Andrew", "Joshua", "Kenneth", "Kevin", "Brian", "George", "Timothy", "Ronald",
    "Jason", "Edward", "Jeffrey", "Ryan", "Jacob", "Gary", "Nicholas", "Eric",
    "Jonathan", "Stephen", "Larry", "Justin", "Scott", "Brandon", "Benjamin", "Samuel",
    "Raymond", "Gregory", "Frank", "Alexander", "Patrick", "Omar", "Luis", "Carlos",
    "Hiroshi", "Rajesh", "Tomasz", "Emeka", "Mateo", "Dmitri", "Kwame", "Arjun",
)
FEMALE_FIRST = (
    "Mary", "Patricia", "Jennifer", "Linda", "Elizabeth", "Barbara", "Susan", "Jessica",
    "Sarah", "Karen", "Lisa", "Nancy", "Betty", "Margaret", "Sandra", "Ashley",
    "Kimberly", "Emily", "Donna", "Michelle", "Carol", "Amanda", "Dorothy", "Melissa",
    "Deborah", "Stephanie", "Rebecca", "Sharon", "Laura", "Cynthia", "Kathleen", "Amy",
    "Angela", "Shirley", "Anna", "Brenda", "Pamela", "Emma", "Nicole", "Helen",
    "Samantha", "Katherine", "Christine", "Rachel", "Maria", "Fatima", "Aisha", "Mei",
    "Priya", "Sofia", "Ingrid", "Yuki", "Chiamaka", "Lucia", "Olga", "Noor",
)
LAST = (
    "Smith", "Johnson", "Williams", "Brown", "Jones", "Garcia", "Miller", "Davis",
    "Rodriguez", "Martinez", "Hernandez", "Lopez", "Gonzalez", "Wilson", "Anderson",
    "Thomas", "Taylor", "Moore", "Jackson", "Martin", "Lee", "Perez", "Thompson",
    "Harris", "Sanchez", "Clark", "Ramirez", "Lewis", "Robinson", "Walker", "Allen",
    "Wright", "Scott", "Torres", "Nguyen", "Flores", "Adams", "Nelson", "Rivera",
    "Campbell", "Mitchell", "Carter", "Roberts", "Patel", "Kowalski", "Okafor",
    "Tanaka", "Schmidt", "Novak", "Murphy", "Kelly", "Sullivan", "Fischer", "Larsen",
    "Haddad", "Mensah", "Petrov", "Rossi", "Costa", "Silva", "Chen", "Wang", "Kim",
    "Park", "Singh", "Khan", "Ali", "Cohen", "Levy", "Dubois", "Moreau", "Jensen",
    "Bauer", "Weber", "Hoffman", "Bennett", "Barnes", "Ross", "Henderson", "Coleman",
    "Jenkins", "Perry", "Powell", "Patterson", "Hughes", "Foster",
)

# Generic past medical history items: (item text, home medication or "").
PMH_ITEMS = (
    ("hypertension", "lisinopril 20 mg daily"),
    ("essential hypertension", "amlodipine 5 mg daily"),
    ("hyperlipidemia", "atorvastatin 40 mg nightly"),
    ("hypothyroidism", "levothyroxine 75 mcg daily"),
    ("gastroesophageal reflux disease", "omeprazole 20 mg daily"),
    ("osteoarthritis of both knees", "acetaminophen 650 mg as needed"),
    ("chronic kidney disease stage 3a", ""),
    ("obesity", ""),
    ("obstructive sleep apnea on nightly CPAP", ""),
    ("mild intermittent asthma", "albuterol inhaler as needed"),
    ("type 2 diabetes, diet controlled", ""),
    ("type 2 diabetes, well controlled on metformin", "metformin 500 mg twice daily"),
    ("iron deficiency anemia", "ferrous sulfate 325 mg daily"),
    ("remote appendectomy", ""),
    ("benign paroxysmal positional vertigo", ""),
    ("gout", "allopurinol 100 mg daily"),
    ("osteoporosis", "alendronate 70 mg weekly"),
    ("seasonal allergic rhinitis", "cetirizine 10 mg daily"),
)

OCCUPATIONS = (
    "works as a school teacher", "works in a warehouse", "drives a delivery truck",
    "works as an accountant", "is a self-employed carpenter", "works in retail",
    "works as a software developer", "is a home health aide", "works in construction",
    "works as a chef", "works night shifts as a security guard",
)
STUDENT = ("is a university student", "is studying at a community college")
RETIRED = (
    "is a retired electrician", "is a retired nurse", "is a retired postal worker",
    "is retired from the railway", "is a retired school principal", "is a retired farmer",
)
OLDER_ONLY_PMH = ("osteoporosis", "osteoarthritis", "chronic kidney disease", "remote appendectomy")
LIVING = (
    "Lives with {his} spouse in a two-story house.",
    "Lives alone in an apartment and is independent in activities of daily living.",
    "Lives with {his} adult daughter, who helps with shopping.",
    "Lives with a partner and two children.",
    "Lives in a ground-floor flat with {his} sister.",
    "Recently moved in with {his} son after a period of homelessness.",
)
TOBACCO = (
    "Never smoker.",
    "Never used tobacco.",
    "Former smoker who quit {years} years ago after about ten pack-years.",
    "Smoked occasionally in college and quit long ago.",
)
ALCOHOL = (
    "Drinks one or two glasses of wine on weekends.",
    "Denies alcohol use.",
    "Drinks socially, fewer than five drinks per week.",
    "Rarely drinks alcohol.",
)
DRUGS = (
    "Denies illicit drug use.",
    "No recreational drug use.",
    "Occasional cannabis use, none in the past year.",
)
ALLERGIES = (
    "No known drug allergies.",
    "Penicillin (rash).",
    "Sulfa drugs (hives).",
    "No known drug allergies; intolerant of codeine (nausea).",
    "Iodinated contrast (itching), premedicated in the past.",
)
FAMILY = (
    "Father had a myocardial infarction in his sixties.",
    "Mother with type 2 diabetes and hypertension.",
    "Noncontributory.",
    "Sister with breast cancer; brother with hypertension.",
    "Both parents lived into their nineties.",
)
OPENERS = (
    "{full} is a {age}-year-old {man} who presents with {complaint}.",
    "{full} is a {age}-year-old {man} with a history of {pmh_short} who was admitted with {complaint}.",
    "This {age}-year-old {man}, {full}, was referred to the {unit} service for {complaint}.",
    "{full}, a {age}-year-old {man}, is seen today for {complaint}.",
    "{name} is a {age}-year-old {man} known to {org} who comes in with {complaint}.",
)
PMH_LEADS = ("Notable for {}.", "Significant for {}.", "Known history of {}.", "{}.")
CLOSERS = (
    "Review of systems is otherwise negative.",
    "{He} denies recent travel or sick contacts.",
    "Vital signs on arrival: heart rate {hr}, blood pressure {sbp}/{dbp}, temperature {temp} C, oxygen saturation {spo2}% on room air.",
    "{He} is accompanied by a family member who helped provide the history.",
    "",
    "",
)


@dataclass(frozen=True)
class Condition:
    """A unit-specific presentation used to write one note and its admission.

    Attributes:
        diagnosis: Primary diagnosis, used in the note and the admission row.
        complaints: Chief complaint options (lower case, may use placeholders).
        hpi: History sentences; a subset is chosen for each note.
        plan: Assessment-and-plan sentences; a subset is chosen for each note.
        meds: Medications started or continued for this condition.
        los: Inclusive (min, max) length of stay in days.
        admission_types: Admission type options.
        dispositions: Discharge disposition options.
        min_age: Youngest plausible patient for this condition.
    """

    diagnosis: str
    complaints: tuple[str, ...]
    hpi: tuple[str, ...]
    plan: tuple[str, ...]
    meds: tuple[str, ...]
    los: tuple[int, int] = (2, 6)
    admission_types: tuple[str, ...] = ("emergency",)
    dispositions: tuple[str, ...] = ("home",)
    min_age: int = 18


C = Condition  # short alias for the tables below

CONDITIONS: dict[str, tuple[Condition, ...]] = {
    "medicine": (
        C(
            "community-acquired pneumonia",
            ("cough and fever", "productive cough and shortness of breath", "fever with pleuritic chest pain"),
            (
                "{He} describes {days} days of cough productive of yellow-green sputum with fevers and rigors.",
                "Chest radiograph in the emergency department showed a {side} lower lobe consolidation.",
                "{He} was febrile to {temp} C with an oxygen saturation of {spo2}% on room air.",
                "A household contact had a similar respiratory illness the week before.",
                "White blood cell count was {wbc} thousand per microliter.",
            ),
            (
                "Continue ceftriaxone and azithromycin for community-acquired pneumonia, transitioning to oral antibiotics once afebrile for 24 hours.",
                "Supplemental oxygen to keep saturations above 92 percent, weaning as tolerated.",
                "Blood and sputum cultures are pending; follow up urinary legionella and pneumococcal antigens.",
                "Encourage incentive spirometry and early ambulation.",
            ),
            ("ceftriaxone 1 g IV daily", "azithromycin 500 mg daily", "guaifenesin 600 mg twice daily"),
            (2, 6), ("emergency",), ("home", "home", "home with services"),
        ),
        C(
            "hyperglycemia with newly diagnosed type 2 diabetes",
            ("excessive thirst and frequent urination", "fatigue and blurred vision"),
            (
                "{He} reports {weeks} weeks of polyuria, polydipsia, and an unintentional {kg} kg weight loss.",
                "Point-of-care glucose was {glucose} mg/dL with a normal anion gap and no ketones.",
                "Hemoglobin A1c returned at {a1c}%, and {he} had never been told {he} had diabetes.",
                "{He} drinks several sugar-sweetened sodas every day.",
            ),
            (
                "Start basal insulin glargine 10 units nightly with correctional insulin lispro.",
                "Begin metformin 500 mg twice daily and titrate as tolerated.",
                "Diabetes educator consulted for glucometer teaching and dietary counseling.",
                "Refer for outpatient retinal screening and a foot examination.",
            ),
            ("insulin glargine 10 units nightly", "metformin 500 mg twice daily"),
            (1, 4), ("emergency", "urgent"), ("home",),
        ),
        C(
            "urinary tract infection with sepsis",
            ("fever and confusion", "dysuria and {side} flank pain"),
            (
                "{His} family noted increasing confusion over {days} days along with poor oral intake.",
                "Urinalysis showed pyuria and positive nitrites, and lactate was {lactate} mmol/L.",
                "{He} received a 30 mL/kg fluid bolus in the emergency department with improvement in blood pressure.",
                "{He} reports burning with urination and {side} flank pain for several days.",
            ),
            (
                "Treat urosepsis with IV ceftriaxone pending urine culture sensitivities.",
                "Trend lactate and renal function; hold antihypertensives while blood pressure is soft.",
                "Renal ultrasound to exclude obstruction.",
                "Delirium precautions with frequent reorientation.",
            ),
            ("ceftriaxone 1 g IV daily", "acetaminophen 650 mg every 6 hours as needed"),
            (3, 7), ("emergency",), ("home", "home with services", "skilled nursing facility"),
        ),
        C(
            "cellulitis of the {side} lower leg",
            ("{side} leg redness and swelling", "a painful red {side} shin"),
            (
                "{He} noticed spreading redness and warmth of the {side} shin over {days} days after a minor scrape while gardening.",
                "There is no crepitus or bullae, and the borders were marked in the emergency department.",
                "{He} has had low-grade fevers but no rigors.",
                "Venous duplex ultrasound was negative for deep vein thrombosis.",
            ),
            (
                "Cefazolin IV with transition to oral cephalexin once the erythema recedes.",
                "Elevate the {side} leg and monitor the marked borders twice daily.",
                "Treat interdigital tinea with topical clotrimazole to prevent recurrence.",
            ),
            ("cefazolin 2 g IV every 8 hours", "clotrimazole 1% cream twice daily"),
            (2, 5), ("emergency",), ("home",),
        ),
        C(
            "acute kidney injury",
            ("nausea and weakness", "decreased urine output"),
            (
                "Creatinine was {creat} mg/dL compared with a baseline of 1.0 mg/dL.",
                "{He} recently started ibuprofen for back pain and had several days of diarrhea.",
                "On examination {he} appears volume depleted with dry mucous membranes.",
                "Potassium was mildly elevated without ECG changes.",
            ),
            (
                "Hold nephrotoxic agents including NSAIDs and the ACE inhibitor.",
                "Isotonic fluids with strict intake and output monitoring.",
                "Repeat basic metabolic panel in the morning; renal ultrasound if no improvement.",
            ),
            ("lactated Ringer's infusion", "ondansetron 4 mg as needed"),
            (2, 5), ("emergency", "urgent"), ("home",),
        ),
        C(
            "symptomatic iron deficiency anemia",
            ("fatigue and exertional breathlessness", "lightheadedness and fatigue"),
            (
                "Hemoglobin was {hgb} g/dL with a low mean corpuscular volume.",
                "Ferritin was low at {ferritin} ng/mL.",
                "{He} reports {weeks} weeks of progressive fatigue and breathlessness climbing stairs.",
                "There is no visible bleeding and stool guaiac was negative.",
            ),
            (
                "Transfuse one unit of packed red cells for hemoglobin below 7 g/dL.",
                "Intravenous iron sucrose before discharge.",
                "Outpatient colonoscopy and upper endoscopy to evaluate for occult blood loss.",
            ),
            ("iron sucrose 200 mg IV", "ferrous sulfate 325 mg every other day"),
            (1, 3), ("emergency", "urgent"), ("home",),
        ),
    ),
    "surgery": (
        C(
            "acute appendicitis",
            ("right lower quadrant abdominal pain", "abdominal pain and vomiting"),
            (
                "Pain began around the umbilicus {hours} hours ago and migrated to the right lower quadrant.",
                "{He} has anorexia and one episode of nonbilious emesis.",
                "CT of the abdomen demonstrated a dilated, inflamed appendix without perforation.",
                "On examination there is tenderness at McBurney's point with voluntary guarding.",
            ),
            (
                "Proceed with laparoscopic appendectomy today; consent obtained.",
                "Cefoxitin preoperatively, NPO, and IV fluids.",
                "Anticipate discharge home on postoperative day one after an uncomplicated appendectomy.",
            ),
            ("cefoxitin 2 g IV", "ketorolac 15 mg IV every 6 hours"),
            (1, 3), ("emergency",), ("home",),
        ),
        C(
            "acute calculous cholecystitis",
            ("right upper quadrant pain after meals", "severe upper abdominal pain"),
            (
                "{He} reports {days} days of constant right upper quadrant pain radiating to the right shoulder after a fatty meal.",
                "Ultrasound showed gallstones with gallbladder wall thickening and pericholecystic fluid.",
                "Murphy's sign is positive and white count is {wbc} thousand.",
                "Liver enzymes and lipase are within normal limits.",
            ),
            (
                "Laparoscopic cholecystectomy planned within 72 hours of presentation.",
                "Piperacillin-tazobactam, IV fluids, and analgesia in the meantime.",
                "Low-fat diet after surgery with clinic follow-up in two weeks.",
            ),
            ("piperacillin-tazobactam 4.5 g IV every 8 hours", "morphine 2 mg IV as needed"),
            (2, 4), ("emergency", "urgent"), ("home",),
        ),
        C(
            "symptomatic {side} inguinal hernia",
            ("a {side} groin bulge", "aching {side} groin pain"),
            (
                "{He} has noted a reducible {side} groin bulge for {months} months that worsens with lifting.",
                "The bulge now causes aching discomfort by the end of the working day.",
                "There have been no obstructive symptoms or episodes of incarceration.",
            ),
            (
                "Elective laparoscopic {side} inguinal hernia repair with mesh.",
                "Avoid heavy lifting for four weeks after surgery.",
                "Same-day discharge is anticipated.",
            ),
            ("acetaminophen 1 g every 8 hours", "ibuprofen 400 mg every 8 hours as needed"),
            (0, 1), ("elective",), ("home",), 25,
        ),
        C(
            "adhesive small bowel obstruction",
            ("abdominal distension and vomiting", "crampy abdominal pain"),
            (
                "{He} had a prior open abdominal operation and now has {days} days of crampy pain, bilious vomiting, and no flatus.",
                "CT shows dilated small bowel loops with a transition point in the lower abdomen.",
                "The abdomen is distended and tympanic without peritonitis.",
            ),
            (
                "Nasogastric decompression, bowel rest, and IV fluids.",
                "Water-soluble contrast challenge; operative exploration if no improvement within 48 hours.",
                "Correct hypokalemia and monitor serial abdominal examinations.",
            ),
            ("potassium chloride 20 mEq IV", "ondansetron 4 mg IV as needed"),
            (3, 8), ("emergency",), ("home", "home with services"),
        ),
        C(
            "acute sigmoid diverticulitis",
            ("left lower quadrant pain", "fever and left-sided abdominal pain"),
            (
                "{He} has {days} days of left lower quadrant pain with low-grade fever.",
                "CT demonstrated sigmoid diverticulitis with a small pericolic fluid collection but no free air.",
                "{He} had a similar but milder episode two years ago.",
            ),
            (
                "IV ciprofloxacin and metronidazole with clear liquid diet.",
                "Interventional radiology drainage if the collection enlarges.",
                "Colonoscopy in six to eight weeks once inflammation resolves.",
            ),
            ("ciprofloxacin 400 mg IV every 12 hours", "metronidazole 500 mg IV every 8 hours"),
            (2, 5), ("emergency",), ("home",),
        ),
    ),
    "orthopaedics": (
        C(
            "displaced {side} femoral neck fracture",
            ("{side} hip pain after a fall", "inability to walk after a fall at home"),
            (
                "{He} tripped over a rug at home and was unable to bear weight afterwards.",
                "The {side} leg is shortened and externally rotated.",
                "Radiographs confirm a displaced {side} femoral neck fracture.",
                "{He} lay on the floor for several hours before a neighbor called for help.",
            ),
            (
                "{Side} hip hemiarthroplasty planned for the next morning.",
                "Geriatric medicine co-management with delirium precautions.",
                "Enoxaparin for venous thromboembolism prophylaxis after surgery.",
                "Physical therapy from postoperative day one; likely discharge to rehabilitation.",
            ),
            ("enoxaparin 40 mg subcutaneously daily", "acetaminophen 1 g every 8 hours"),
            (4, 9), ("emergency",), ("rehabilitation", "skilled nursing facility"), 62,
        ),
        C(
            "primary osteoarthritis of the {side} knee",
            ("chronic {side} knee pain", "worsening {side} knee pain limiting walking"),
            (
                "{He} has had progressive {side} knee pain for {years} years despite physical therapy, bracing, and steroid injections.",
                "Weight-bearing radiographs show bone-on-bone medial compartment narrowing.",
                "Walking tolerance is now limited to a single block.",
            ),
            (
                "Admitted for elective {side} total knee arthroplasty.",
                "Multimodal analgesia with acetaminophen, celecoxib, and short-course oxycodone.",
                "Aspirin 81 mg twice daily for thromboprophylaxis for 35 days.",
                "Outpatient physiotherapy to regain range of motion.",
            ),
            ("celecoxib 200 mg daily", "aspirin 81 mg twice daily", "oxycodone 5 mg as needed"),
            (1, 3), ("elective",), ("home", "home with services"), 50,
        ),
        C(
            "{side} distal radius fracture",
            ("{side} wrist pain after a fall", "a deformed {side} wrist"),
            (
                "{He} fell on an outstretched hand while walking on an icy pavement.",
                "Radiographs show a dorsally angulated {side} distal radius fracture with intra-articular extension.",
                "The hand is neurovascularly intact.",
            ),
            (
                "Open reduction and internal fixation with a volar locking plate.",
                "Sling and elevation; hand therapy referral at two weeks.",
                "Bone density scan given a fragility fracture.",
            ),
            ("acetaminophen 1 g every 8 hours", "ibuprofen 400 mg every 8 hours as needed"),
            (1, 2), ("emergency", "urgent"), ("home",),
        ),
        C(
            "{side} bimalleolar ankle fracture",
            ("{side} ankle pain and swelling", "a twisted {side} ankle"),
            (
                "{He} inverted the {side} ankle playing five-a-side football and heard a crack.",
                "Radiographs show a displaced bimalleolar fracture with widening of the medial clear space.",
                "The skin is intact and the foot is warm with palpable pulses.",
            ),
            (
                "Open reduction and internal fixation once swelling settles.",
                "Non-weight-bearing in a boot for six weeks.",
                "Enoxaparin prophylaxis while immobilized.",
            ),
            ("enoxaparin 40 mg subcutaneously daily", "acetaminophen 1 g every 8 hours"),
            (1, 4), ("emergency",), ("home",),
        ),
    ),
    "psychiatry": (
        C(
            "major depressive disorder, severe, without psychotic features",
            ("worsening depression with suicidal thoughts", "low mood and hopelessness"),
            (
                "{He} describes {weeks} weeks of low mood, anhedonia, early morning awakening, and poor appetite.",
                "{He} endorses passive suicidal ideation without a specific plan and agreed to a safety plan.",
                "Stressors include a recent job loss and separation from {his} partner.",
                "PHQ-9 score on admission was {phq}.",
            ),
            (
                "Start sertraline 50 mg daily and titrate to 100 mg.",
                "Continue 15-minute safety checks.",
                "Daily individual psychotherapy and group cognitive behavioral therapy.",
                "Family meeting before discharge to review the safety plan.",
            ),
            ("sertraline 50 mg daily", "mirtazapine 15 mg nightly"),
            (5, 14), ("emergency", "voluntary"), ("home", "home with outpatient therapy"),
        ),
        C(
            "bipolar I disorder, current episode manic",
            ("decreased need for sleep and grandiosity", "agitation and racing thoughts"),
            (
                "Family report {he} has slept two to three hours a night for a week and spent several thousand dollars impulsively.",
                "{He} is pressured in speech with flight of ideas and grandiose plans.",
                "{He} stopped lithium two months ago because of tremor.",
            ),
            (
                "Restart lithium 300 mg twice daily with a level in five days.",
                "Olanzapine 10 mg nightly for acute agitation.",
                "Check renal and thyroid function before titration.",
            ),
            ("lithium carbonate 300 mg twice daily", "olanzapine 10 mg nightly"),
            (7, 18), ("emergency", "involuntary"), ("home", "home with outpatient therapy"),
        ),
        C(
            "schizophrenia with acute exacerbation",
            ("hearing voices and paranoia", "increasingly disorganized behavior"),
            (
                "{He} reports hearing voices telling {him} the neighbors are poisoning {his} food.",
                "{He} missed the last two long-acting injections.",
                "Thought process is disorganized, and insight and judgment are poor.",
            ),
            (
                "Resume long-acting injectable paliperidone.",
                "Oral risperidone bridge until therapeutic.",
                "Social work referral to reconnect with community mental health team.",
            ),
            ("paliperidone palmitate 156 mg monthly", "risperidone 2 mg twice daily"),
            (10, 21), ("involuntary", "emergency"), ("home", "supported housing"),
        ),
        C(
            "generalized anxiety disorder with panic attacks",
            ("frequent panic attacks", "constant worry and insomnia"),
            (
                "{He} has had several panic attacks a week for {months} months with palpitations and a sense of doom.",
                "GAD-7 score is {phq}.",
                "Cardiac workup in the emergency department was unremarkable.",
            ),
            (
                "Start escitalopram 10 mg daily.",
                "Hydroxyzine as needed rather than benzodiazepines.",
                "Referral for cognitive behavioral therapy.",
            ),
            ("escitalopram 10 mg daily", "hydroxyzine 25 mg as needed"),
            (2, 5), ("voluntary",), ("home", "home with outpatient therapy"),
        ),
    ),
    "cardiology": (
        C(
            "non-ST-elevation myocardial infarction",
            ("substernal chest pain", "chest pressure radiating to the left arm"),
            (
                "{He} developed pressure-like substernal chest pain radiating to the left arm while climbing stairs.",
                "Initial high-sensitivity troponin was {trop} ng/L and rose on repeat testing.",
                "ECG showed {mm} mm ST depressions in the lateral leads.",
                "Pain eased with sublingual nitroglycerin in the ambulance.",
            ),
            (
                "Aspirin, ticagrelor, high-intensity atorvastatin, and heparin infusion.",
                "Coronary angiography planned within 24 hours.",
                "Transthoracic echocardiogram to assess left ventricular function.",
                "Cardiac rehabilitation referral at discharge.",
            ),
            ("aspirin 81 mg daily", "ticagrelor 90 mg twice daily", "atorvastatin 80 mg nightly"),
            (2, 5), ("emergency",), ("home",), 35,
        ),
        C(
            "atrial fibrillation with rapid ventricular response",
            ("palpitations", "a racing heartbeat and breathlessness"),
            (
                "{He} has known paroxysmal atrial fibrillation and presented with palpitations and a heart rate of {hr_high}.",
                "{He} reports full adherence to apixaban and has not missed doses.",
                "Thyroid function was normal and there were no signs of infection.",
            ),
            (
                "Rate control with IV diltiazem, then oral metoprolol succinate.",
                "Continue apixaban 5 mg twice daily for stroke prevention.",
                "Discuss rhythm control with elective cardioversion or ablation in clinic.",
            ),
            ("apixaban 5 mg twice daily", "metoprolol succinate 50 mg daily"),
            (1, 3), ("emergency",), ("home",), 45,
        ),
        C(
            "acute decompensated heart failure with reduced ejection fraction",
            ("progressive shortness of breath and leg swelling", "orthopnea and ankle swelling"),
            (
                "{He} reports orthopnea, paroxysmal nocturnal dyspnea, and a {kg} kg weight gain over two weeks.",
                "Ejection fraction on the last echocardiogram was {ef}%.",
                "BNP was {bnp} pg/mL and chest radiograph showed pulmonary edema.",
                "Dietary indiscretion with salty takeaway meals preceded the admission.",
            ),
            (
                "IV furosemide diuresis with daily weights and strict intake and output.",
                "Continue sacubitril-valsartan, metoprolol succinate, and spironolactone as blood pressure allows.",
                "Low-sodium diet and fluid restriction to two liters.",
                "Heart failure nurse follow-up within seven days of discharge.",
            ),
            ("furosemide 40 mg IV twice daily", "sacubitril-valsartan 49-51 mg twice daily", "spironolactone 25 mg daily"),
            (3, 8), ("emergency",), ("home", "home with services"), 40,
        ),
        C(
            "syncope due to severe aortic stenosis",
            ("fainting on exertion", "a collapse while gardening"),
            (
                "{He} lost consciousness briefly while carrying groceries upstairs, with rapid recovery.",
                "A harsh crescendo-decrescendo systolic murmur radiates to the carotids.",
                "Echocardiogram showed an aortic valve area of 0.7 square centimeters with a mean gradient of {gradient} mmHg.",
            ),
            (
                "Structural heart team evaluation for transcatheter aortic valve replacement.",
                "Avoid vasodilators and strenuous exertion until the valve is treated.",
                "CT angiography for procedural planning.",
            ),
            ("atorvastatin 20 mg nightly",),
            (2, 5), ("emergency", "urgent"), ("home",), 65,
        ),
        C(
            "acute pericarditis",
            ("sharp chest pain worse lying flat", "pleuritic chest pain after a cold"),
            (
                "{He} has {days} days of sharp central chest pain that improves when leaning forward, following a viral illness.",
                "ECG shows diffuse concave ST elevation with PR depression.",
                "A friction rub is audible at the left sternal border; troponin is normal.",
                "Echocardiogram shows a small pericardial effusion without tamponade.",
            ),
            (
                "High-dose ibuprofen with a proton pump inhibitor for two weeks.",
                "Colchicine 0.5 mg twice daily for three months to reduce recurrence.",
                "Avoid strenuous exercise until symptoms and inflammatory markers resolve.",
            ),
            ("ibuprofen 600 mg three times daily", "colchicine 0.5 mg twice daily", "omeprazole 20 mg daily"),
            (1, 3), ("emergency",), ("home",),
        ),
    ),
    "neurology": (
        C(
            "focal epilepsy with breakthrough seizure",
            ("a witnessed generalized seizure", "a seizure at home"),
            (
                "{His} partner witnessed a {minutes}-minute generalized tonic-clonic seizure with tongue biting and postictal confusion.",
                "{He} has a known seizure disorder and missed several doses of levetiracetam while traveling.",
                "MRI of the brain showed no acute abnormality.",
            ),
            (
                "Increase levetiracetam to 1000 mg twice daily.",
                "Routine EEG ordered.",
                "Seizure precautions; advised not to drive for six months.",
            ),
            ("levetiracetam 1000 mg twice daily",),
            (1, 3), ("emergency",), ("home",),
        ),
        C(
            "acute lacunar ischemic stroke",
            ("sudden {side}-sided weakness", "slurred speech and {side} arm weakness"),
            (
                "{He} woke with {side}-sided weakness and slurred speech; last known well was {hours} hours earlier, outside the thrombolysis window.",
                "MRI showed a small acute infarct in the internal capsule consistent with small vessel disease.",
                "Telemetry has shown sinus rhythm throughout the admission.",
            ),
            (
                "Aspirin and clopidogrel for 21 days, then aspirin alone.",
                "High-intensity statin and blood pressure control.",
                "Physical and occupational therapy assessments.",
            ),
            ("aspirin 81 mg daily", "clopidogrel 75 mg daily", "atorvastatin 80 mg nightly"),
            (2, 6), ("emergency",), ("home", "rehabilitation"), 40,
        ),
        C(
            "migraine without aura, status migrainosus",
            ("a severe headache for three days", "a throbbing headache with vomiting"),
            (
                "{He} has had a unilateral throbbing headache for three days with photophobia and vomiting.",
                "Headaches have increased to {n_days} days per month over the last year.",
                "Neurological examination is normal and there are no red-flag features.",
            ),
            (
                "IV prochlorperazine, ketorolac, and fluids for status migrainosus.",
                "Start topiramate 25 mg nightly as migraine prophylaxis.",
                "Headache diary and limit analgesic use to avoid medication-overuse headache.",
            ),
            ("topiramate 25 mg nightly", "sumatriptan 50 mg as needed"),
            (1, 2), ("emergency",), ("home",),
        ),
        C(
            "relapse of relapsing-remitting multiple sclerosis",
            ("blurred vision in the {side} eye", "numbness of both legs"),
            (
                "{He} has relapsing-remitting multiple sclerosis and developed painful blurred vision in the {side} eye over {days} days.",
                "MRI showed a new enhancing lesion.",
                "{He} has been on ocrelizumab infusions for two years.",
            ),
            (
                "IV methylprednisolone 1 g daily for three days.",
                "Ophthalmology assessment of visual acuity and color vision.",
                "Review disease-modifying therapy at the multiple sclerosis clinic.",
            ),
            ("methylprednisolone 1 g IV daily", "pantoprazole 40 mg daily"),
            (2, 4), ("emergency", "urgent"), ("home",),
        ),
        C(
            "Parkinson disease with recurrent falls",
            ("recurrent falls", "worsening tremor and stiffness"),
            (
                "{He} has Parkinson disease diagnosed {years} years ago and has fallen three times this month.",
                "Wearing-off occurs about two hours before each carbidopa-levodopa dose.",
                "Orthostatic blood pressure drop of 25 mmHg was documented.",
            ),
            (
                "Increase carbidopa-levodopa dosing frequency to five times daily.",
                "Physical therapy for gait and balance training.",
                "Home safety assessment by occupational therapy.",
            ),
            ("carbidopa-levodopa 25-100 mg five times daily",),
            (2, 5), ("emergency", "urgent"), ("home with services", "rehabilitation"), 55,
        ),
    ),
}


# ---------------------------------------------------------------------------
# Planted trends
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class TrendSpec:
    """How one trend is planted.

    Attributes:
        name: Trend name, a key of ``TREND_MARKERS``.
        description: One-sentence description.
        question: Clinical question the trend answers.
        age_range: Inclusive ages of the patients carrying it.
        conditions: Leaf path to acute presentations written for that leaf.
        social: Social history sentences (one is used in every note).
        pmh: Past medical history items (one is used in every note).
        meds: Long-term medications added to every note.
        background_plan: Plan sentences for notes whose main problem is not the trend.
        excludes: Generic diagnoses that would contradict the trend for its patients.
    """

    name: str
    description: str
    question: str
    age_range: tuple[int, int]
    conditions: dict[str, tuple[Condition, ...]]
    social: tuple[str, ...]
    pmh: tuple[str, ...]
    meds: tuple[str, ...]
    background_plan: tuple[str, ...]
    excludes: tuple[str, ...] = ()


TRENDS: tuple[TrendSpec, ...] = (
    TrendSpec(
        "alcohol_liver",
        "Heavy alcohol use complicated by alcoholic liver disease, pancreatitis, variceal bleeding or withdrawal seizures.",
        "Which patients have heavy alcohol use with liver disease or other alcohol-related complications?",
        (34, 72),
        {
            "hospital_a.medicine": (
                C(
                    "decompensated alcoholic cirrhosis with ascites",
                    ("increasing abdominal swelling and confusion", "abdominal distension and jaundice"),
                    (
                        "{He} presents with {weeks} weeks of increasing abdominal girth, leg swelling, and new confusion.",
                        "Diagnostic paracentesis showed no evidence of spontaneous bacterial peritonitis.",
                        "Labs were notable for total bilirubin {bili} mg/dL, INR {inr}, and albumin {alb} g/dL.",
                        "{He} continued drinking daily until the day of admission.",
                    ),
                    (
                        "Large-volume paracentesis with albumin replacement.",
                        "Lactulose titrated to three bowel movements daily for hepatic encephalopathy.",
                        "Addiction medicine consult; counseled that continued drinking will worsen the cirrhosis.",
                        "Hepatology referral for transplant evaluation after six months of abstinence.",
                    ),
                    ("lactulose 20 g three times daily", "spironolactone 100 mg daily", "furosemide 40 mg daily"),
                    (4, 9), ("emergency",), ("home", "home with services", "against medical advice"),
                ),
                C(
                    "upper gastrointestinal bleeding from esophageal varices",
                    ("vomiting blood", "black stools and dizziness"),
                    (
                        "{He} had two episodes of hematemesis and several melanotic stools before calling an ambulance.",
                        "Hemoglobin was {hgb} g/dL and {he} was tachycardic to {hr_high} on arrival.",
                        "Urgent endoscopy showed large esophageal varices with stigmata of recent bleeding.",
                    ),
                    (
                        "Octreotide infusion, IV ceftriaxone prophylaxis, and variceal band ligation.",
                        "Restrictive transfusion strategy targeting hemoglobin of 7 to 8 g/dL.",
                        "Start carvedilol for secondary prophylaxis once hemodynamically stable.",
                    ),
                    ("octreotide 50 mcg/h infusion", "pantoprazole 40 mg IV twice daily", "carvedilol 6.25 mg twice daily"),
                    (3, 7), ("emergency",), ("home", "against medical advice"),
                ),
            ),
            "hospital_b.medicine": (
                C(
                    "acute alcohol-related pancreatitis",
                    ("severe epigastric pain radiating to the back", "epigastric pain and vomiting"),
                    (
                        "Pain began after a weekend binge and radiates through to the back.",
                        "Lipase was {lipase} U/L; ultrasound showed no gallstones.",
                        "{He} has had one previous episode of pancreatitis two years ago.",
                    ),
                    (
                        "Goal-directed IV fluids, analgesia, and early oral feeding as tolerated.",
                        "CT only if no improvement within 72 hours.",
                        "Brief intervention for alcohol use and referral to community alcohol services.",
                    ),
                    ("lactated Ringer's infusion", "hydromorphone 0.5 mg IV as needed"),
                    (3, 7), ("emergency",), ("home", "against medical advice"),
                ),
            ),
            "hospital_a.psychiatry": (
                C(
                    "alcohol use disorder, severe, with withdrawal",
                    ("request for help to stop drinking", "tremor and anxiety after stopping alcohol"),
                    (
                        "{He} asks for help to stop drinking after {his} partner left; last drink was the previous evening.",
                        "On arrival {he} was tremulous and diaphoretic with a CIWA score of {ciwa}.",
                        "{He} has had two previous detoxification admissions.",
                    ),
                    (
                        "Symptom-triggered lorazepam per CIWA protocol.",
                        "High-dose thiamine before any glucose-containing fluids.",
                        "Naltrexone avoided because of liver disease; start acamprosate for relapse prevention.",
                    ),
                    ("lorazepam per CIWA protocol", "acamprosate 666 mg three times daily"),
                    (4, 8), ("voluntary",), ("home with outpatient therapy", "residential treatment"),
                ),
            ),
            "hospital_c.neurology": (
                C(
                    "alcohol withdrawal seizure",
                    ("a first seizure", "a generalized seizure after stopping drinking"),
                    (
                        "{He} had a witnessed generalized tonic-clonic seizure about {hours} hours after {his} last drink.",
                        "There is no prior history of epilepsy and CT of the head was unremarkable.",
                        "{He} was tremulous and hypertensive on arrival.",
                    ),
                    (
                        "Lorazepam per CIWA protocol; no long-term antiepileptic is indicated for withdrawal seizures.",
                        "Thiamine, folate, and magnesium replacement.",
                        "Referral to addiction services before discharge.",
                    ),
                    ("lorazepam per CIWA protocol", "magnesium sulfate 2 g IV"),
                    (2, 5), ("emergency",), ("home", "against medical advice"),
                ),
            ),
        },
        (
            "Reports heavy alcohol use, about {drinks} beers a day for the past {years} years.",
            "Long history of heavy alcohol use, roughly a bottle of vodka every day or two.",
            "Has had heavy alcohol use since {his} twenties and has tried to cut down several times without success.",
        ),
        (
            "alcoholic liver disease with cirrhosis (Child-Pugh class B)",
            "alcoholic liver disease with steatohepatitis",
            "alcoholic liver disease with prior episodes of ascites",
        ),
        ("thiamine 100 mg daily", "folic acid 1 mg daily"),
        (
            "Counseled again on abstinence given alcoholic liver disease.",
            "Thiamine continued and CIWA monitoring ordered given recent drinking.",
        ),
    ),
    TrendSpec(
        "smoking_copd",
        "Long smoking history with COPD exacerbations, hypercapnic respiratory failure or suspicious lung nodules.",
        "Which patients with a long smoking history have COPD exacerbations or lung nodules?",
        (48, 86),
        {
            "hospital_a.medicine": (
                C(
                    "acute exacerbation of COPD",
                    ("worsening shortness of breath and wheeze", "increased sputum and breathlessness"),
                    (
                        "{He} reports {days} days of increased dyspnea and purulent sputum following a viral illness.",
                        "Arterial blood gas showed pH {ph} with a pCO2 of {pco2} mmHg.",
                        "This is {his} third exacerbation requiring treatment this year.",
                    ),
                    (
                        "Nebulized albuterol and ipratropium, prednisone 40 mg for five days, and doxycycline.",
                        "Noninvasive ventilation if hypercapnia worsens.",
                        "Smoking cessation counseling with nicotine replacement.",
                        "Pulmonary rehabilitation referral after discharge.",
                    ),
                    ("prednisone 40 mg daily", "doxycycline 100 mg twice daily", "albuterol-ipratropium nebulizer every 6 hours"),
                    (3, 7), ("emergency",), ("home", "home with services"),
                ),
            ),
            "hospital_a.surgery": (
                C(
                    "spiculated {side} upper lobe lung nodule",
                    ("a lung nodule found on CT", "evaluation of a suspicious lung nodule"),
                    (
                        "A {size} mm spiculated nodule in the {side} upper lobe was found on a lung cancer screening CT.",
                        "PET-CT showed avid uptake with a maximum SUV of {suv}.",
                        "Pulmonary function testing showed an FEV1 of {fev1}% predicted.",
                    ),
                    (
                        "Video-assisted thoracoscopic wedge resection with frozen section.",
                        "Proceed to lobectomy if malignancy is confirmed and lung function allows.",
                        "Smoking cessation strongly advised before surgery.",
                    ),
                    ("cefazolin 2 g IV before incision",),
                    (2, 5), ("elective",), ("home",),
                ),
            ),
            "hospital_b.medicine": (
                C(
                    "acute hypercapnic respiratory failure due to COPD exacerbation",
                    ("severe breathlessness and drowsiness", "shortness of breath at rest"),
                    (
                        "{He} was found drowsy at home with oxygen saturation of {spo2}% and labored breathing.",
                        "Blood gas showed pH {ph} and pCO2 {pco2} mmHg, and {he} required BiPAP in the emergency department.",
                        "{He} had run out of {his} maintenance inhalers two weeks earlier.",
                    ),
                    (
                        "BiPAP overnight with repeat blood gas in two hours.",
                        "Systemic corticosteroids, nebulized bronchodilators, and azithromycin.",
                        "Target oxygen saturation of 88 to 92 percent.",
                        "Refill inhalers and arrange smoking cessation clinic.",
                    ),
                    ("methylprednisolone 40 mg IV daily", "azithromycin 500 mg daily", "tiotropium 18 mcg daily"),
                    (4, 9), ("emergency",), ("home", "home with services", "skilled nursing facility"),
                ),
            ),
        },
        (
            "Current smoker with a {py} pack-year smoking history; still smokes about a pack a day.",
            "Quit smoking {months} months ago after a {py} pack-year smoking history.",
            "Has a {py} pack-year smoking history and smokes hand-rolled cigarettes.",
        ),
        (
            "COPD (GOLD stage 3) on home inhaler therapy",
            "severe COPD with chronic hypoxemia on 2 L home oxygen",
            "COPD with emphysema on prior CT",
        ),
        ("tiotropium 18 mcg daily", "fluticasone-salmeterol 250/50 mcg twice daily", "albuterol inhaler as needed"),
        (
            "Continue inhalers for COPD and offer smoking cessation support.",
            "Encourage influenza and pneumococcal vaccination given COPD.",
        ),
    ),
    TrendSpec(
        "diabetes_foot",
        "Poorly controlled type 2 diabetes with neuropathic foot ulcers, foot infection or osteomyelitis.",
        "Which patients have poorly controlled diabetes complicated by foot ulcers or osteomyelitis?",
        (42, 82),
        {
            "hospital_a.medicine": (
                C(
                    "diabetic foot ulcer with cellulitis",
                    ("a red, swollen {side} foot", "a draining wound on the {side} foot"),
                    (
                        "{He} noticed drainage from a painless ulcer under the {side} first metatarsal head {weeks} weeks ago.",
                        "The surrounding skin is red and warm to the mid-foot; glucose on arrival was {glucose} mg/dL.",
                        "{He} has reduced monofilament sensation in both feet.",
                    ),
                    (
                        "IV vancomycin and piperacillin-tazobactam pending wound cultures.",
                        "Foot radiographs and MRI to exclude osteomyelitis.",
                        "Basal-bolus insulin with diabetes team input.",
                        "Offloading footwear and podiatry review.",
                    ),
                    ("vancomycin IV per pharmacy", "piperacillin-tazobactam 4.5 g IV every 8 hours", "insulin lispro with meals"),
                    (4, 9), ("emergency",), ("home", "home with services"),
                ),
            ),
            "hospital_a.surgery": (
                C(
                    "infected diabetic foot ulcer with abscess",
                    ("a foul-smelling {side} foot wound", "fever and {side} foot swelling"),
                    (
                        "{He} has a plantar abscess beneath a chronic {side} foot ulcer with fluctuance and purulent drainage.",
                        "White count is {wbc} thousand and glucose was {glucose} mg/dL.",
                        "Dorsalis pedis pulses are weak bilaterally.",
                    ),
                    (
                        "Incision, drainage, and sharp debridement in the operating room today.",
                        "Broad-spectrum antibiotics narrowed to culture results.",
                        "Vascular surgery to assess perfusion with ankle-brachial indices.",
                    ),
                    ("vancomycin IV per pharmacy", "cefepime 2 g IV every 8 hours"),
                    (4, 10), ("emergency",), ("home with services", "rehabilitation"),
                ),
            ),
            "hospital_a.orthopaedics": (
                C(
                    "osteomyelitis of the {side} great toe",
                    ("a non-healing {side} toe ulcer", "a swollen {side} great toe"),
                    (
                        "A chronic ulcer over the {side} great toe probes to bone.",
                        "MRI confirms osteomyelitis of the distal phalanx.",
                        "ESR is {esr} mm/h.",
                    ),
                    (
                        "{Side} great toe amputation with bone biopsy and culture.",
                        "Six weeks of culture-directed antibiotics via PICC line.",
                        "Podiatry follow-up for offloading and protective footwear.",
                    ),
                    ("ertapenem 1 g IV daily", "insulin glargine 24 units nightly"),
                    (4, 10), ("urgent", "emergency"), ("home with services", "rehabilitation"),
                ),
            ),
            "hospital_b.medicine": (
                C(
                    "diabetic foot infection with hyperglycemia",
                    ("high blood sugars and a foot wound", "a painful {side} foot and high glucose"),
                    (
                        "Glucose was {glucose} mg/dL with an HbA1c of {a1c}%, and a {side} heel ulcer has become infected.",
                        "{He} admits to skipping insulin doses because of cost.",
                        "There is neuropathy with loss of vibration sense to the knees.",
                    ),
                    (
                        "IV antibiotics and wound care with daily dressing changes.",
                        "Insulin infusion transitioned to basal-bolus regimen.",
                        "Social work referral for medication access.",
                    ),
                    ("insulin glargine 20 units nightly", "insulin lispro with meals", "cefazolin 2 g IV every 8 hours"),
                    (3, 8), ("emergency",), ("home", "home with services"),
                ),
            ),
        },
        (
            "Admits to checking blood sugars rarely and eating irregularly.",
            "Lives alone and finds it difficult to afford insulin and test strips.",
            "Works long shifts and often skips meals and medications.",
        ),
        (
            "poorly controlled type 2 diabetes (HbA1c {a1c}%) with peripheral neuropathy and a prior foot ulcer",
            "poorly controlled type 2 diabetes with recurrent foot ulcer and retinopathy",
            "poorly controlled type 2 diabetes on insulin, complicated by neuropathy and foot ulcer",
        ),
        ("insulin glargine 20 units nightly", "metformin 1000 mg twice daily", "gabapentin 300 mg nightly"),
        (
            "Diabetes team review for poorly controlled glucose; inspect feet daily for ulceration.",
            "Podiatry follow-up for the known diabetic foot ulcer.",
        ),
        ("hyperglycemia with newly diagnosed type 2 diabetes",),
    ),
    TrendSpec(
        "afib_stroke",
        "Atrial fibrillation with anticoagulation stopped, followed by an embolic (cardioembolic) stroke.",
        "Which patients with atrial fibrillation off anticoagulation had an embolic stroke?",
        (58, 91),
        {
            "hospital_c.neurology": (
                C(
                    "acute cardioembolic stroke of the {side} middle cerebral artery territory",
                    ("sudden {side}-sided weakness and trouble speaking", "facial droop and arm weakness"),
                    (
                        "{He} developed sudden {side}-sided weakness and expressive aphasia while eating breakfast.",
                        "CT angiography showed an occlusion of the {side} middle cerebral artery branch; NIHSS was {nihss}.",
                        "Telemetry showed atrial fibrillation, and {he} had stopped {his} anticoagulant months earlier.",
                    ),
                    (
                        "Embolic stroke from atrial fibrillation: restart apixaban on day {n_days} given infarct size.",
                        "Mechanical thrombectomy performed with good reperfusion.",
                        "Speech and language therapy and swallow assessment.",
                        "Discuss barriers to anticoagulation adherence with the family.",
                    ),
                    ("apixaban 5 mg twice daily (to restart)", "atorvastatin 80 mg nightly"),
                    (4, 10), ("emergency",), ("rehabilitation", "home with services", "skilled nursing facility"),
                ),
            ),
            "hospital_b.cardiology": (
                C(
                    "atrial fibrillation with recent embolic stroke",
                    ("irregular heartbeat after a stroke", "cardiology review after stroke"),
                    (
                        "{He} is recovering from an embolic stroke and telemetry shows persistent atrial fibrillation with rates of {hr_high}.",
                        "Echocardiogram showed a dilated left atrium without intracardiac thrombus.",
                        "{He} had been prescribed warfarin but stopped it because of bruising.",
                    ),
                    (
                        "Restart anticoagulation with apixaban for secondary stroke prevention.",
                        "Rate control with metoprolol succinate.",
                        "Consider left atrial appendage occlusion if adherence remains a barrier.",
                    ),
                    ("apixaban 5 mg twice daily", "metoprolol succinate 50 mg daily"),
                    (3, 7), ("emergency", "transfer"), ("home with services", "rehabilitation"),
                ),
            ),
        },
        (
            "Stopped taking {his} anticoagulant several months ago because of cost.",
            "Stopped warfarin after a nosebleed and never followed up.",
            "Was worried about bleeding and stopped {his} blood thinner on {his} own.",
        ),
        (
            "paroxysmal atrial fibrillation (CHA2DS2-VASc {chads}), off anticoagulation since {month}",
            "persistent atrial fibrillation, off anticoagulation for several months",
            "atrial fibrillation diagnosed in {year}, off anticoagulation after stopping apixaban",
        ),
        ("metoprolol succinate 50 mg daily", "atorvastatin 40 mg nightly"),
        (
            "Readdress anticoagulation for atrial fibrillation given the prior embolic stroke.",
            "Recommend restarting apixaban for atrial fibrillation; patient to discuss with cardiology.",
        ),
        ("atrial fibrillation with rapid ventricular response",),
    ),
    TrendSpec(
        "opioid_overdose",
        "Opioid use disorder with nonfatal overdoses reversed by naloxone, aspiration pneumonia or anoxic brain injury.",
        "Which patients with opioid use disorder have had an overdose requiring naloxone?",
        (19, 52),
        {
            "hospital_a.psychiatry": (
                C(
                    "opioid use disorder, severe, following nonfatal overdose",
                    ("admission after an accidental overdose", "cravings and withdrawal after an overdose"),
                    (
                        "{He} was revived with naloxone by a friend two days ago after using fentanyl alone.",
                        "{He} now has withdrawal symptoms with a COWS score of {ciwa}.",
                        "{He} expresses ambivalence but is interested in medication treatment.",
                    ),
                    (
                        "Start buprenorphine-naloxone induction.",
                        "Provide a take-home naloxone kit and overdose education.",
                        "Referral to an outpatient opioid treatment program before discharge.",
                    ),
                    ("buprenorphine-naloxone 8-2 mg daily", "clonidine 0.1 mg as needed"),
                    (3, 7), ("voluntary",), ("home with outpatient therapy", "residential treatment"),
                ),
            ),
            "hospital_b.medicine": (
                C(
                    "opioid overdose with aspiration pneumonia",
                    ("found unresponsive", "unresponsiveness and breathing difficulty"),
                    (
                        "{He} was found unresponsive by a roommate and received intranasal naloxone from EMS with good response.",
                        "Chest radiograph showed a right lower lobe infiltrate consistent with aspiration.",
                        "Urine toxicology was positive for fentanyl.",
                    ),
                    (
                        "Ampicillin-sulbactam for aspiration pneumonia.",
                        "Offer buprenorphine initiation before discharge and dispense naloxone.",
                        "Addiction consult and harm-reduction counseling.",
                    ),
                    ("ampicillin-sulbactam 3 g IV every 6 hours", "naloxone 4 mg nasal spray kit"),
                    (2, 6), ("emergency",), ("home", "against medical advice"),
                ),
            ),
            "hospital_c.neurology": (
                C(
                    "hypoxic-ischemic brain injury after opioid overdose",
                    ("confusion after an overdose", "memory problems after being found unresponsive"),
                    (
                        "{He} was down for an unknown time after a heroin overdose and required several doses of naloxone.",
                        "MRI showed restricted diffusion in both globi pallidi consistent with hypoxic injury.",
                        "{He} has persistent short-term memory deficits and gait ataxia.",
                    ),
                    (
                        "Neurorehabilitation assessment and cognitive testing.",
                        "EEG to exclude nonconvulsive seizures.",
                        "Addiction medicine involvement and naloxone kit on discharge.",
                    ),
                    ("levetiracetam 500 mg twice daily", "naloxone 4 mg nasal spray kit"),
                    (5, 14), ("emergency", "transfer"), ("rehabilitation", "skilled nursing facility"),
                ),
            ),
        },
        (
            "Has opioid use disorder and uses fentanyl daily, mostly smoked.",
            "Long-standing opioid use disorder that began with prescribed oxycodone after an injury; now uses heroin.",
            "Active opioid use disorder; injects heroin and shares equipment at times.",
        ),
        (
            "prior opioid overdose reversed with naloxone",
            "{n_od} previous overdoses requiring naloxone",
            "hepatitis C and a history of overdose treated with naloxone",
        ),
        ("naloxone 4 mg nasal spray kit",),
        (
            "Offered medication for opioid use disorder and provided naloxone.",
            "Naloxone kit dispensed and harm-reduction counseling given.",
        ),
    ),
)
del C

NOTE_TYPES = {
    "psychiatry": ("Psychiatric Admission Evaluation", "Psychiatry Progress Note", "Discharge Summary"),
    "surgery": ("Surgical Admission Note", "Surgery Progress Note", "Discharge Summary", "Surgical Consultation"),
    "default": ("History and Physical", "Progress Note", "Consultation Note", "Discharge Summary"),
}
